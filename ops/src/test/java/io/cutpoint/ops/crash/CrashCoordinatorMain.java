package io.cutpoint.ops.crash;

import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.rollback.RollbackPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The coordinator as its own process, for the crash test: RocksDB in the given directory, periodic
 * snapshots, automatic rollback (LATEST_COMPLETE). Prints {@code CP READY} when it serves; stops
 * gracefully on {@code STOP} or when stdin ends.
 *
 * <p>Arguments: port, data directory, snapshot interval (ms), rollback deadline (ms).
 */
public final class CrashCoordinatorMain {

  private CrashCoordinatorMain() {}

  public static void main(String[] args) throws Exception {
    CoordinatorConfig config = CoordinatorConfig.builder()
        .port(Integer.parseInt(args[0]))
        .dataDir(Path.of(args[1]))
        .snapshotInterval(Duration.ofMillis(Long.parseLong(args[2])))
        .snapshotTimeout(Duration.ofSeconds(5))
        .heartbeatInterval(Duration.ofMillis(200))
        .heartbeatTimeout(Duration.ofSeconds(2))
        .retainCompleteSnapshots(100_000)
        .rollbackPolicy(RollbackPolicy.LATEST_COMPLETE)
        .rollbackDeadline(Duration.ofMillis(Long.parseLong(args[3])))
        .build();
    CoordinatorServer server = CoordinatorServer.start(config, new SimpleMeterRegistry());
    System.out.println("CP READY port=" + server.port());
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null && !line.trim().equals("STOP"); line = in.readLine()) {
      // only STOP is understood
    }
    server.close();
    System.out.println("CP CLOSED");
    System.out.flush();
  }
}
