package io.cutpoint.ops.bench.jmh;

import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the hot-path microbenchmarks (not part of the test phase; see {@code
 * src/site/markdown/benchmarks.md}). Argument: an optional regular expression of benchmarks.
 */
public final class JmhMain {

  private JmhMain() {}

  public static void main(String[] args) throws RunnerException {
    String include = args.length > 0 ? args[0] : JmhMain.class.getPackageName() + ".*";
    Options options =
        new OptionsBuilder()
            .include(include)
            .forks(1)
            .warmupIterations(3)
            .warmupTime(TimeValue.seconds(1))
            .measurementIterations(5)
            .measurementTime(TimeValue.seconds(1))
            .build();
    new Runner(options).run();
  }
}
