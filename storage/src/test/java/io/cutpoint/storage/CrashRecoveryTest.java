package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.cut.ChannelId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM writes snapshots into the store and is killed with SIGKILL at different points: while
 * writing pieces, right as it starts a commit. Each time the store must reopen with every COMPLETE
 * snapshot intact and verifying, and nothing PENDING left.
 */
class CrashRecoveryTest {
  private static final Duration LINE_TIMEOUT = Duration.ofMinutes(2);

  @TempDir Path tmp;

  /** When to kill: on the first line starting with {@code trigger} after this many commits. */
  private record KillPoint(int commits, String trigger) {}

  @Test
  void killedWriterLeavesEveryCompleteSnapshotIntactAndNoPendingLeftovers() throws Exception {
    crashes(false);
  }

  /**
   * The same with content-addressed states that share most chunks: after every kill, no committed
   * snapshot misses a chunk, and every stored chunk is one a committed snapshot uses (none leaked).
   */
  @Test
  void killedContentWriterLeavesNoCommittedSnapshotMissingAChunkAndNoChunkLeaked()
      throws Exception {
    crashes(true);
  }

  private void crashes(boolean content) throws Exception {
    this.content = content;
    Path db = tmp.resolve("db");
    Set<Long> committed = new TreeSet<>();
    long highestSeen = 0;
    List<KillPoint> kills =
        List.of(
            new KillPoint(3, "WROTE"),
            new KillPoint(2, "COMMITTING"),
            new KillPoint(1, "COMMITTED"),
            new KillPoint(0, "WROTE"),
            new KillPoint(4, "COMMITTING"),
            new KillPoint(2, "WROTE"));
    int abortedLeftovers = 0;
    for (int round = 0; round < kills.size(); round++) {
      KillPoint kill = kills.get(round);
      Path stderr = tmp.resolve("child-" + round + ".err");
      List<Long> thisRound = new ArrayList<>();
      try (ChildJvm child =
          new ChildJvm(
              CrashingWriter.class,
              List.of("-Xmx256m"),
              stderr,
              db.toString(),
              content ? "content" : "plain")) {
        assertThat(child.nextLine(LINE_TIMEOUT)).as(stderrOf(stderr)).isEqualTo("OPEN");
        if (round == 0) {
          assertThatThrownBy(() -> RocksSnapshotStore.open(db))
              .isInstanceOf(StoreException.class)
              .hasMessageContaining("is in use by another process");
        }
        while (true) {
          String line = child.nextLine(LINE_TIMEOUT);
          assertThat(line).as(stderrOf(stderr)).isNotNull();
          long id = Long.parseLong(line.split(" ")[1]);
          assertThat(id).as("ids grow across restarts").isGreaterThan(highestSeen);
          if (line.startsWith("COMMITTED ")) {
            committed.add(id);
            thisRound.add(id);
            highestSeen = id;
          }
          if (line.startsWith(kill.trigger()) && thisRound.size() >= kill.commits()) {
            break;
          }
        }
        assertThat(child.kill()).as("killed by SIGKILL").isEqualTo(137);
      }
      highestSeen = checkAfterCrash(db, committed, highestSeen);
      abortedLeftovers += abortedOnOpen;
    }
    // Killed while writing pieces, the store had leftovers to clean at least once.
    assertThat(abortedLeftovers).isPositive();
  }

  private int abortedOnOpen;
  private boolean content;

  /** Returns the highest id in the store. */
  private long checkAfterCrash(Path db, Set<Long> committed, long highestSeen) {
    try (RocksSnapshotStore store = RocksSnapshotStore.open(db)) {
      assertThat(store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_PENDING))).isEmpty();
      abortedOnOpen = store.abortedOnOpen().size();
      Set<Long> complete = new TreeSet<>();
      long highest = highestSeen;
      for (SnapshotManifest m : store.list(Set.of())) {
        highest = Math.max(highest, m.getSnapshotId());
        if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
          complete.add(m.getSnapshotId());
          store.verifyIntegrity(m.getSnapshotId());
          assertContents(
              store,
              content
                  ? CrashingWriter.contentFixture(m.getSnapshotId())
                  : new SnapshotFixture(m.getSnapshotId(), 20_000, 1024));
        } else {
          assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
          assertThat(m.getReason()).isEqualTo("coordinator restarted");
          assertThat(store.readState(m.getSnapshotId(), "a", chunk -> {})).isZero();
          assertThat(store.workerMeta(m.getSnapshotId(), "a")).isEmpty();
        }
      }
      assertThat(complete).containsAll(committed);
      if (content) {
        java.util.Set<com.google.protobuf.ByteString> used = new java.util.HashSet<>();
        for (long id : complete) {
          for (String w : SnapshotFixture.WORKERS) {
            store
                .workerMeta(id, w)
                .orElseThrow()
                .getContentList()
                .forEach(c -> used.add(c.getSha256()));
          }
        }
        store.close();
        try (RawDb raw = new RawDb(db)) {
          assertThat(raw.allKeys(RocksHandles.CONTENT_CHUNKS))
              .extracting(com.google.protobuf.ByteString::copyFrom)
              .as("every stored chunk is used by a committed snapshot")
              .containsExactlyInAnyOrderElementsOf(used);
        } catch (org.rocksdb.RocksDBException e) {
          throw new AssertionError(e);
        }
      }
      return highest;
    }
  }

  private static void assertContents(SnapshotStore store, SnapshotFixture expected) {
    for (String w : SnapshotFixture.WORKERS) {
      assertThat(expected.readState(store, w)).isEqualTo(expected.states.get(w));
    }
    for (ChannelId c : SnapshotFixture.CHANNELS) {
      assertThat(store.readChannel(expected.id, c)).isEqualTo(expected.recordings.get(c));
    }
  }

  private static String stderrOf(Path stderr) {
    try {
      return "child stderr: " + (Files.exists(stderr) ? Files.readString(stderr) : "");
    } catch (java.io.IOException e) {
      return "child stderr unreadable: " + e;
    }
  }
}
