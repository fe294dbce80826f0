package io.cutpoint.server.e2e;

import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;

/** A coordinator in its own JVM, for tests that kill it: {@code dataDir port intervalMillis}. */
public final class CoordinatorMain {

  private CoordinatorMain() {}

  public static void main(String[] args) throws Exception {
    CoordinatorConfig config =
        LoopbackEndToEndTest.config(
            Path.of(args[0]),
            Integer.parseInt(args[1]),
            Duration.ofMillis(Long.parseLong(args[2])));
    CoordinatorServer server = CoordinatorServer.start(config, new SimpleMeterRegistry());
    System.out.println("READY " + server.port());
    System.out.flush();
    server.awaitTermination();
  }
}
