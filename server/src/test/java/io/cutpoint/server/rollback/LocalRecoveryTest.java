package io.cutpoint.server.rollback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.storage.HeldState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workers with local recovery keep their newest uploaded state on their own disk and restore a
 * rollback to that snapshot from it, after checking its chunk list against the snapshot's; the
 * rollback's report says which did. A damaged copy, or one of another snapshot, is downloaded.
 */
class LocalRecoveryTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path store;
  @TempDir Path disks;

  private static Map<String, Long> balances(RollbackCluster c) {
    Map<String, Long> out = new TreeMap<>();
    for (String w : List.of("a", "b", "c")) {
      out.put(w, c.member(w).teller().balance());
    }
    return out;
  }

  private static String rollBack(RollbackCluster c, long id) {
    int before = c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).size();
    c.admin.rollback(RollbackRequest.newBuilder().setSnapshotId(id).setWait(true).build());
    await()
        .atMost(WAIT)
        .until(() -> c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).size() > before);
    return c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).get(before).getMessage();
  }

  private static double restores(RollbackCluster c, String source) {
    return c.registry.get("cutpoint.rollback.restores").tag("source", source).counter().count();
  }

  private static Map<String, Long> reportedCopies(RollbackCluster c) {
    Map<String, Long> out = new TreeMap<>();
    c.admin
        .getCluster(GetClusterRequest.getDefaultInstance())
        .getWorkersList()
        .forEach(w -> out.put(w.getDecl().getWorkerId(), w.getLocalCopySnapshotId()));
    return out;
  }

  private static Map<String, HeldState> heldIn(RollbackCluster c, long snapshotId) {
    Map<String, HeldState> out = new TreeMap<>();
    for (String w : List.of("a", "b", "c")) {
      LocalSnapshotMeta m = c.store.workerMeta(snapshotId, w).orElseThrow();
      out.put(w, new HeldState(m.getStateBytes(), m.getStateCrc32C()));
    }
    return out;
  }

  @Test
  void theTargetsCheckLeavesUnreadOnlyTheStatesTheWorkersReportedTheyHold() throws Exception {
    try (RollbackCluster c =
        new RollbackCluster(store, CoordinatorConfig.builder(), "a", "b", "c")
            .localRecovery(disks)
            .start()) {
      long first = c.snapshot().getSnapshotId();
      await()
          .atMost(WAIT)
          .until(() -> reportedCopies(c).equals(Map.of("a", first, "b", first, "c", first)));
      long second = c.snapshot().getSnapshotId();
      await()
          .atMost(WAIT)
          .until(() -> reportedCopies(c).equals(Map.of("a", second, "b", second, "c", second)));

      assertThat(rollBack(c, first)).doesNotContain("local copy");
      assertThat(c.corruptible.verified().get(c.corruptible.verified().size() - 1))
          .as("every worker keeps the second snapshot's state, not the first's")
          .isEqualTo(new CorruptibleStore.Verified(first, Map.of()));

      assertThat(rollBack(c, second)).contains("3 of 3 workers restored from their local copy");
      assertThat(c.corruptible.verified().get(c.corruptible.verified().size() - 1))
          .isEqualTo(new CorruptibleStore.Verified(second, heldIn(c, second)));
      List<String> started =
          c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED).stream()
              .map(e -> e.getMessage())
              .toList();
      assertThat(started).hasSize(2);
      assertThat(started.get(0)).doesNotContain("own disk");
      assertThat(started.get(1))
          .endsWith("; 3 of 3 workers hold its state on their own disk (a, b, c)");
    }
  }

  @Test
  void aRollbackToTheNewestSnapshotRestoresFromTheLocalCopiesAndADamagedOneIsDownloaded()
      throws Exception {
    try (RollbackCluster c =
        new RollbackCluster(store, CoordinatorConfig.builder(), "a", "b", "c")
            .localRecovery(disks)
            .start()) {
      RollbackCluster.Member a = c.member("a");
      a.worker().execute(a.teller()::transfer);
      SnapshotManifest snap = c.snapshot();
      assertThat(snap.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  List.of("a", "b", "c").stream()
                      .allMatch(w -> Files.exists(disks.resolve(w + ".state"))));
      Map<String, Long> expected = balances(c);
      c.traffic(true);
      await().atMost(WAIT).until(() -> !balances(c).equals(expected));
      c.quiesce();

      String report = rollBack(c, snap.getSnapshotId());
      assertThat(report).contains("3 of 3 workers restored from their local copy (a, b, c)");
      assertThat(restores(c, "local")).isEqualTo(3);
      // the money in flight at the snapshot was replayed: the sum is whole again
      c.quiesce();
      assertThat(balances(c).values().stream().mapToLong(Long::longValue).sum())
          .isEqualTo(3 * RollbackCluster.BALANCE);

      // b's copy is damaged on disk: b downloads, the others restore from theirs
      Path copy = disks.resolve("b.state");
      byte[] bytes = Files.readAllBytes(copy);
      bytes[bytes.length / 2] ^= 0x20;
      Files.write(copy, bytes);
      report = rollBack(c, snap.getSnapshotId());
      assertThat(report).contains("2 of 3 workers restored from their local copy (a, c)");
      assertThat(restores(c, "download")).isEqualTo(1);
      c.quiesce();
      assertThat(balances(c).values().stream().mapToLong(Long::longValue).sum())
          .isEqualTo(3 * RollbackCluster.BALANCE);
    }
  }
}
