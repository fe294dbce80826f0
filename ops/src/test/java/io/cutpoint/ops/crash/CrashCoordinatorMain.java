package io.cutpoint.ops.crash;

import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.rollback.RollbackPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The coordinator as its own process, for the crash test: RocksDB in the given directory, periodic
 * snapshots, automatic rollback (LATEST_COMPLETE). Prints {@code CP READY} when it serves; stops
 * gracefully on {@code STOP} or when stdin ends.
 *
 * <p>Arguments: port file, data directory, snapshot interval (ms), rollback deadline (ms). The
 * first start binds an ephemeral port and writes it to the port file; a restart binds the port in
 * the file again, as a restarted coordinator keeps its address.
 */
public final class CrashCoordinatorMain {

  private CrashCoordinatorMain() {}

  private static int portFile(Path file) throws java.io.IOException {
    return Files.exists(file) ? Integer.parseInt(Files.readString(file).trim()) : 0;
  }

  public static void main(String[] args) throws Exception {
    CoordinatorConfig config =
        CoordinatorConfig.builder()
            .port(portFile(Path.of(args[0])))
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
    Path portFile = Path.of(args[0]);
    if (!Files.exists(portFile)) {
      Files.writeString(portFile, Integer.toString(server.port()));
    }
    System.out.println("CP READY port=" + server.port());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine();
        line != null && !line.trim().equals("STOP");
        line = in.readLine()) {
      // only STOP is understood
    }
    server.close();
    System.out.println("CP CLOSED");
    System.out.flush();
  }
}
