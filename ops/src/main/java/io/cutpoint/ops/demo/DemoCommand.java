package io.cutpoint.ops.demo;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

@Command(name = "demo", mixinStandardHelpOptions = true, description = "Bank-transfer demo.")
public final class DemoCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    return 0;
  }
}
