package io.cutpoint.ops.demo;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of one demo run.
 *
 * @param connect coordinator to join ({@code host:port}); null runs an embedded one
 * @param dataDir store of the embedded coordinator; null uses a temporary directory deleted at exit
 * @param ratePerWorker transfers per second each worker attempts
 */
public record DemoOptions(
    int workers,
    Topologies.Kind topology,
    Duration interval,
    Duration duration,
    Duration crashEvery,
    long seed,
    String connect,
    Path dataDir,
    long initialBalance,
    int ratePerWorker,
    int maxAmount) {

  public DemoOptions {
    if (workers < 2) {
      throw new IllegalArgumentException("--workers must be at least 2, got " + workers);
    }
    if (duration.isZero() || duration.isNegative()) {
      throw new IllegalArgumentException("--duration must be more than 0");
    }
    if (ratePerWorker < 1) {
      throw new IllegalArgumentException("--rate must be at least 1, got " + ratePerWorker);
    }
    if (initialBalance < 1) {
      throw new IllegalArgumentException("--balance must be at least 1, got " + initialBalance);
    }
  }

  public long expectedTotal() {
    return workers * initialBalance;
  }
}
