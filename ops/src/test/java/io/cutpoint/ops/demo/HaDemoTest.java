package io.cutpoint.ops.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.cutpoint.ha.node.HaCoordinator;
import io.cutpoint.ops.Cli;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.server.CoordinatorConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code demo --ha N}: the leader is killed while the bank runs, and nothing committed is lost; and
 * {@code --coordinators}, in the demo and the admin commands, with its usage errors.
 */
class HaDemoTest {

  @TempDir Path dir;

  private static JsonObject summary(Cli.Result r) {
    List<String> lines = r.out().lines().toList();
    return JsonParser.parseString(lines.get(lines.size() - 1)).getAsJsonObject();
  }

  @Test
  void theLeaderIsKilledAndNoCommittedSnapshotIsLostAndTheMoneyIsConserved() {
    Cli.Result r =
        Cli.run(
            "demo",
            "--ha",
            "3",
            "--workers",
            "3",
            "--duration",
            "14s",
            "--interval",
            "500ms",
            "--crash-every",
            "3s",
            "--json");
    JsonObject s = summary(r);
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(ExitCodes.OK);
    assertThat(s.get("ok").getAsBoolean()).isTrue();
    assertThat(s.get("coordinators").getAsInt()).isEqualTo(3);
    assertThat(s.get("failovers").getAsInt()).as(r.out()).isGreaterThanOrEqualTo(1);
    assertThat(s.get("failovers_timed_out").getAsInt()).isZero();
    assertThat(s.get("committed_before_kills").getAsInt()).isPositive();
    assertThat(s.get("lost_snapshots").getAsInt()).isZero();
    assertThat(s.get("max_failover_ms").getAsDouble()).isPositive();
    assertThat(s.get("final_total").getAsLong()).isEqualTo(s.get("expected_total").getAsLong());
    assertThat(s.get("conservation_violations").getAsInt()).isZero();
    assertThat(r.out()).contains("\"event\":\"failover\"", "\"event\":\"survivors\"");
  }

  @Test
  void adminCommandsAndTheDemoFollowAStandbysPointerToTheLeader() throws Exception {
    try (DemoHaCluster cluster =
        DemoHaCluster.start(
            2,
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir)
                .snapshotInterval(Duration.ofMillis(300))
                .build())) {
      HaCoordinator leader =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(cluster::leader, java.util.Optional::isPresent)
              .get();
      List<String> standbyFirst = new ArrayList<>(cluster.addresses());
      standbyFirst.remove(leader.address());
      standbyFirst.add(leader.address());
      String list = String.join(",", standbyFirst);

      Cli.Result cluster1 = Cli.run("cluster", "--coordinators", list, "--json");
      assertThat(cluster1.code()).as(cluster1.err()).isEqualTo(ExitCodes.OK);

      Cli.Result demo =
          Cli.run(
              "demo",
              "--coordinators",
              list,
              "--workers",
              "2",
              "--duration",
              "3s",
              "--crash-every",
              "0",
              "--json");
      assertThat(demo.code()).as(demo.out() + demo.err()).isEqualTo(ExitCodes.OK);
      assertThat(summary(demo).get("snapshots_checked").getAsInt()).isPositive();
    }
  }

  @Test
  void badValuesOfHaAndCoordinatorsAreUsageErrorsWithOneClearLine() {
    assertUsage(
        new String[] {"demo", "--ha", "1"}, "cutpoint: --ha must be 2..5 coordinators, got 1");
    assertUsage(
        new String[] {"demo", "--ha", "6"}, "cutpoint: --ha must be 2..5 coordinators, got 6");
    assertUsage(
        new String[] {"demo", "--ha", "3", "--connect", "localhost:7070"},
        "cutpoint: --ha runs its own coordinators; it cannot be combined with --connect or"
            + " --coordinators");
    assertUsage(
        new String[] {"demo", "--ha", "3", "--web"},
        "cutpoint: --ha keeps its snapshots in its in-process S3 server and serves no console: it"
            + " cannot be combined with --data-dir or --web");
    assertUsage(
        new String[] {"demo", "--coordinators", "a:7070,b:0"},
        "cutpoint: bad --coordinators: coordinator address must be HOST:PORT with a port 1-65535,"
            + " got 'b:0'");
    assertUsage(
        new String[] {"demo", "--coordinators", "a:7070", "--connect", "a:7070"},
        "cutpoint: --connect and --coordinators name the same thing: give one");
    assertUsage(
        new String[] {"list", "--coordinators", "a:7070,,b:7070"},
        "cutpoint: bad --coordinators: empty coordinator address in 'a:7070,,b:7070'"
            + " (HOST:PORT,HOST:PORT,...)");
    assertUsage(
        new String[] {"list", "--coordinators", "a:7070", "--server", "b:7070"},
        "cutpoint: --server and --coordinators name the coordinator twice: give one");
    assertUsage(
        new String[] {"worker", "remove", "w", "--coordinators", "a:70700"},
        "cutpoint: bad --coordinators: coordinator address must be HOST:PORT with a port 1-65535,"
            + " got 'a:70700'");
  }

  private static void assertUsage(String[] args, String line) {
    Cli.Result r = Cli.run(args);
    assertThat(r.code()).as(String.join(" ", args) + ": " + r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().lines().toList()).hasSize(1);
    assertThat(r.err()).startsWith(line + " (see 'cutpoint ");
  }
}
