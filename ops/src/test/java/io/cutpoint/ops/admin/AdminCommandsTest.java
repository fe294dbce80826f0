package io.cutpoint.ops.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.RollbackPhase;
import io.cutpoint.api.v1.RollbackView;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ops.Cli;
import io.cutpoint.ops.ExitCodes;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The admin commands against a fake coordinator: what they print and how they exit. */
class AdminCommandsTest {

  private FakeAdmin admin;

  @BeforeEach
  void start() throws Exception {
    admin = new FakeAdmin();
  }

  @AfterEach
  void stop() throws Exception {
    admin.close();
  }

  private Cli.Result run(String... args) {
    String[] full = new String[args.length + 2];
    System.arraycopy(args, 0, full, 0, args.length);
    full[args.length] = "--server";
    full[args.length + 1] = admin.target();
    return Cli.run(full);
  }

  @Test
  void listPrintsATableAndPassesTheStatusFilter() {
    Cli.Result r = run("list", "--status", "complete,FAILED");
    assertThat(r.code()).isEqualTo(0);
    assertThat(r.out().lines().findFirst().orElseThrow())
        .matches(
            "ID\\s+STATUS\\s+TRIGGER\\s+STARTED\\s+DURATION\\s+WORKERS\\s+STATE\\s+IN-FLIGHT\\s+PINNED\\s+REASON");
    assertThat(r.out()).containsPattern("8\\s+aborted.*timed out after 60s");
    assertThat(r.out())
        .containsPattern(
            "7\\s+complete\\s+admin\\s+1970-01-01 00:00:01Z\\s+50.0ms\\s+2\\s+4.0 KiB\\s+2 \\(10 B\\)");
    assertThat(admin.lastList.getStatusesList())
        .containsExactly(
            SnapshotStatus.SNAPSHOT_STATUS_COMPLETE, SnapshotStatus.SNAPSHOT_STATUS_FAILED);
  }

  @Test
  void listLimitCutsTheOutputAndBadStatusIsUsageError() {
    Cli.Result r = run("list", "--limit", "1", "--json");
    assertThat(r.code()).isEqualTo(0);
    assertThat(r.out()).contains("\"snapshot_id\": \"8\"").doesNotContain("\"snapshot_id\": \"7\"");
    Cli.Result bad = run("list", "--status", "done");
    assertThat(bad.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.err()).contains("unknown --status 'done'");
  }

  @Test
  void showPrintsManifestPiecesAndChannelSummary() {
    Cli.Result r = run("show", "7");
    assertThat(r.code()).isEqualTo(0);
    assertThat(r.out())
        .contains(
            "snapshot:   7",
            "status:     complete",
            "initiators: a",
            "phases:     markers 20.0ms, upload -, commit -");
    assertThat(r.out())
        .containsPattern("a\\s+2.0 KiB\\s+1\\s+2\\s+10 B\\s+unspecified\\s+b=5\\s+b=3");
    assertThat(r.out()).containsPattern("a->b\\s+2").containsPattern("b->a\\s+0");
  }

  @Test
  void showChannelListsTheRecordedMessages() {
    Cli.Result r = run("show", "7", "--channel", "a->b");
    assertThat(r.code()).isEqualTo(0);
    assertThat(r.out()).contains("snapshot 7, channel a->b: 2 messages recorded in transit");
    assertThat(r.out()).containsPattern("4\\s+5\\s+\"pay 5\"").containsPattern("5\\s+2\\s+0x0102");
    Cli.Result json = run("show", "7", "--channel", "a->b", "--json", "--limit", "1");
    assertThat(json.out().strip())
        .isEqualTo(
            "{\"snapshot_id\":\"7\",\"from\":\"a\",\"to\":\"b\",\"total_messages\":2,"
                + "\"messages\":[{\"seq\":\"4\",\"payload_base64\":\"cGF5IDU=\"}]}");
  }

  /**
   * The trace places a worker's steps by its header's arrival (3.0 ms): it began 2.5 ms before
   * that, captured 2.4 ms before, closed b's channel and completed 1.0 ms before; the coordinator
   * got its piece whole at 3.5 ms and ended at 50 ms.
   */
  @Test
  void showTraceBreaksTheSnapshotsTimeDown() {
    Cli.Result r = run("show", "7", "--trace");
    assertThat(r.code()).isEqualTo(0);
    assertThat(r.out()).containsPattern("a\\s+0.50\\s+0.60\\s+2.00\\s+3.00\\s+3.50\\s+b@2.00");
    assertThat(r.out())
        .contains(
            "Critical path, through a, the last piece delivered: start to capture 0.50, state"
                + " capture 0.10, markers 1.40, to upload 1.00, upload 0.50, verify and commit"
                + " 46.50");
    Cli.Result json = run("show", "7", "--trace", "--json");
    assertThat(json.out())
        .contains(
            "\"critical_path_worker\":\"a\"",
            "\"closed_ms\":{\"b\":2}",
            "\"verify and commit\":46.5");
    Cli.Result both = run("show", "7", "--trace", "--channel", "a->b");
    assertThat(both.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(both.err()).contains("--trace and --channel do not go together");
  }

  @Test
  void showOfAMissingSnapshotOrChannelFailsClearly() {
    Cli.Result missing = run("show", "42");
    assertThat(missing.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(missing.err()).isEqualTo("cutpoint: snapshot 42 not found\n");
    Cli.Result noChannel = run("show", "7", "--channel", "a->z");
    assertThat(noChannel.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(noChannel.err()).contains("snapshot 7 has no channel a->z");
    Cli.Result badChannel = run("show", "7", "--channel", "ab");
    assertThat(badChannel.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badChannel.err()).contains("--channel must be FROM->TO");
    Cli.Result tooLarge = run("show", "18446744073709551615");
    assertThat(tooLarge.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(tooLarge.err()).contains("is not a snapshot id (ids are below 2^63)");
  }

  @Test
  void snapshotWaitExitsOneWhenTheSnapshotDoesNotComplete() {
    Cli.Result ok = run("snapshot", "--wait");
    assertThat(ok.code()).isEqualTo(0);
    assertThat(ok.out())
        .isEqualTo(
            "snapshot 7 complete in 50.0ms: 2 workers, 4.0 KiB state, "
                + "2 messages in flight (10 B)\n");
    Cli.Result aborted = run("snapshot", "--wait", "--wait-timeout", "1234ms");
    assertThat(aborted.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(aborted.err()).isEqualTo("cutpoint: snapshot 8 aborted: timed out after 60s\n");
  }

  @Test
  void aWaitTimeoutWithoutWaitAndANegativeWatchCountAreUsageErrors() {
    for (String[] args :
        new String[][] {
          {"snapshot", "--wait-timeout", "5s"}, {"rollback", "7", "--wait-timeout", "5s"}
        }) {
      Cli.Result r = run(args);
      assertThat(r.code()).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);
      assertThat(r.err()).contains("--wait-timeout needs --wait");
    }
    Cli.Result watch = run("watch", "--count", "-1");
    assertThat(watch.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(watch.err()).contains("--count must be at least 1");
  }

  @Test
  void snapshotWithoutWaitReportsTheIdAndJsonIsParsableProto() {
    assertThat(run("snapshot").out()).isEqualTo("snapshot 7 started\n");
    assertThat(run("snapshot", "--json").out())
        .contains("\"snapshot_id\": \"7\"", "\"status\": \"SNAPSHOT_STATUS_COMPLETE\"");
  }

  @Test
  void failedPreconditionIsAFailedOperationWithTheServersReason() {
    Cli.Result r = run("delete", "7");
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.err()).isEqualTo("cutpoint: snapshot 7 is pinned\n");
  }

  @Test
  void rollbackWaitReportsDuration() {
    Cli.Result r = run("rollback", "7", "--wait");
    assertThat(r.code()).isEqualTo(0);
    assertThat(r.out()).isEqualTo("rolled back to snapshot 7 in 75.0ms (epoch 2)\n");
  }

  @Test
  void rollbackWaitPrintsTheWorkersItStillWaitsFor() {
    Cli.Result r = run("rollback", "9", "--wait");
    assertThat(r.code()).as(r.err()).isEqualTo(0);
    assertThat(r.out())
        .isEqualTo(
            "waiting for b: workers not rejoined: [b]\n"
                + "rolled back to snapshot 9 in 75.0ms (epoch 2)\n");
  }

  @Test
  void rollbackCancelReportsTheWorkersResumedWithoutARestoreAndNeedsNoId() {
    Cli.Result r = run("rollback", "--cancel");
    assertThat(r.code()).isEqualTo(0);
    assertThat(r.out())
        .isEqualTo(
            "rollback to snapshot 7 cancelled (epoch 3); resumed without a restore: a; resumed"
                + " once their restore under way ends: b\n");
    Cli.Result both = run("rollback", "7", "--cancel");
    assertThat(both.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(both.err()).contains("--cancel takes no snapshot ID");
    Cli.Result none = run("rollback");
    assertThat(none.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(none.err()).contains("missing snapshot ID (or --cancel)");
    for (String[] waiting :
        List.of(new String[] {"--wait"}, new String[] {"--wait-timeout", "5s"})) {
      List<String> args = new java.util.ArrayList<>(List.of("rollback", "--cancel"));
      args.addAll(List.of(waiting));
      Cli.Result ignored = run(args.toArray(String[]::new));
      assertThat(ignored.code()).as(ignored.err()).isEqualTo(ExitCodes.USAGE);
      assertThat(ignored.err()).contains("--cancel answers at once");
    }
  }

  /** Options that do not go together are refused before any call: exit 2, whatever the server. */
  @Test
  void showTraceWithAChannelIsRefusedBeforeTheCoordinatorIsAsked() {
    Cli.Result r = Cli.run("show", "1", "--trace", "--channel", "a->b", "--server", "127.0.0.1:1");
    assertThat(r.code()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("--trace and --channel do not go together");
  }

  @Test
  void clusterShowsAFailedRollbackThePausedScheduleAndWhySnapshotsAreBlocked() {
    admin.rollbackView =
        RollbackView.newBuilder()
            .setPhase(RollbackPhase.ROLLBACK_PHASE_FAILED)
            .setSnapshotId(7)
            .setDetail("the deadline of 1m passed; workers not rejoined: [b]")
            .build();
    Cli.Result r = run("cluster");
    assertThat(r.code()).isEqualTo(0);
    assertThat(r.out())
        .contains(
            "rollback:          failed (the deadline of 1m passed; workers not rejoined: [b])")
        .doesNotContain("in progress")
        .contains("schedule:          paused (every 10.00s when resumed)")
        .contains("snapshots:         blocked (workers_lost): workers without a live session: [b]");
  }

  @Test
  void workerRemoveScheduleAndSnapshotAbortSayWhatTheyDidOrWhyNot() {
    assertThat(run("worker", "remove", "b").out()).isEqualTo("worker b removed\n");
    Cli.Result unknown = run("worker", "remove", "zz");
    assertThat(unknown.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(unknown.err()).isEqualTo("cutpoint: worker zz not found\n");
    assertThat(run("schedule", "pause").out()).isEqualTo("periodic snapshots paused\n");
    assertThat(run("schedule", "resume").out()).isEqualTo("periodic snapshots resumed\n");
    assertThat(run("snapshot", "--abort", "8").out()).isEqualTo("snapshot 8 aborted\n");
    Cli.Result ended = run("snapshot", "--abort", "7");
    assertThat(ended.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(ended.err()).contains("snapshot 7 is not pending");
    assertThat(run("snapshot", "--abort", "8", "--wait").code()).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void clusterShowsWorkersTable() {
    Cli.Result r = run("cluster");
    assertThat(r.code()).isEqualTo(0);
    assertThat(r.out()).contains("latest complete:   snapshot 7");
    assertThat(r.out()).containsPattern("HEARTBEAT\\s+LOCAL COPY\n");
    assertThat(r.out())
        .containsPattern("a\\s+running\\s+127.0.0.1:5000\\s+b\\s+b\\s+.*\\s+snapshot 7\n");
  }

  @Test
  void watchPrintsOneLinePerEventAndJsonLines() {
    Cli.Result r = run("watch");
    assertThat(r.code()).as("the stream ended: the coordinator went away").isEqualTo(1);
    assertThat(r.err())
        .startsWith("cutpoint: the coordinator at ")
        .endsWith(" went away (it ended the event stream)\n");
    assertThat(r.out().lines()).hasSize(2);
    assertThat(r.out())
        .contains("00:00:01.000  snapshot_completed   snapshot=7 epoch=0 took=50.0ms");
    assertThat(r.out()).contains("worker_lost          worker=b epoch=0  missed heartbeats");
    Cli.Result json = run("watch", "--json", "--count", "1");
    assertThat(json.code()).as("it stopped after its count").isZero();
    assertThat(json.out().lines()).hasSize(1);
    assertThat(json.out()).startsWith("{\"type\":\"EVENT_TYPE_SNAPSHOT_COMPLETED\"");
  }

  @Test
  void unimplementedCallsSayTheServerDoesNotSupportThem() {
    Cli.Result r = run("analyze", "7");
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.err())
        .startsWith(
            "cutpoint: the coordinator at " + admin.target() + " does not support this operation");
  }
}
