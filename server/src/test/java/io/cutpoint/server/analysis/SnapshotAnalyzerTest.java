package io.cutpoint.server.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.Activity;
import io.cutpoint.api.v1.AnalyzeResponse;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.ChannelSummary;
import io.cutpoint.api.v1.DeadlockSet;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.storage.CorruptionException;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SnapshotAnalyzerTest {

  private final InMemorySnapshotStore store = new InMemorySnapshotStore();
  private final SnapshotAnalyzer analyzer = new SnapshotAnalyzer(store);

  @AfterEach
  void close() {
    store.close();
  }

  /**
   * a and b hold a fork each and wait for the other's; c waits for a; d's message to e is on its
   * way.
   */
  private static StoredCutWriter deadlockedTable() {
    return new StoredCutWriter()
        .worker("a", Activity.ACTIVITY_PASSIVE, 100, "b:fork-1")
        .worker("b", Activity.ACTIVITY_PASSIVE, 200, "a:fork-0")
        .worker("c", Activity.ACTIVITY_PASSIVE, 300, "a")
        .worker("d", Activity.ACTIVITY_ACTIVE, 400)
        .worker("e", Activity.ACTIVITY_PASSIVE, 500, "d")
        .channel("a", "b")
        .channel("b", "a")
        .channel("a", "c")
        .channel("d", "e", 7, 9)
        .channel("e", "d");
  }

  @Test
  void aCompleteSnapshotIsAnalyzedIntoTheAdminResponse() {
    long id = deadlockedTable().commit(store);

    AnalyzeResponse r = analyzer.analyze(id);

    assertThat(r.getSnapshotId()).isEqualTo(id);
    assertThat(r.getDeadlock().getDeadlocked()).isTrue();
    assertThat(r.getDeadlock().getSetsList()).hasSize(1);
    DeadlockSet set = r.getDeadlock().getSets(0);
    assertThat(set.getWorkersList()).containsExactly("a", "b", "c");
    assertThat(set.getCycleList()).containsExactly("a", "b");
    assertThat(set.getEdgesList())
        .extracting(e -> e.getWaiter() + ">" + e.getHolder() + ":" + e.getResource())
        .containsExactly("a>b:fork-1", "b>a:fork-0", "c>a:");
    assertThat(r.getDeadlock().getUnblockedByInFlightList())
        .extracting(e -> e.getWaiter() + ">" + e.getHolder())
        .containsExactly("e>d");

    assertThat(r.getTermination().getTerminated()).isFalse();
    assertThat(r.getTermination().getActiveWorkersList()).containsExactly("d");
    assertThat(r.getTermination().getNonEmptyChannelsList()).containsExactly(ref("d", "e"));

    assertThat(r.getSummary().getWorkers()).isEqualTo(5);
    assertThat(r.getSummary().getChannels()).isEqualTo(5);
    assertThat(r.getSummary().getStateBytes()).isEqualTo(1500);
    assertThat(r.getSummary().getChannelBytes()).isEqualTo(16);
    assertThat(r.getSummary().getPerChannelList())
        .containsExactly(
            summary("a", "b", 0, 0),
            summary("a", "c", 0, 0),
            summary("b", "a", 0, 0),
            summary("d", "e", 2, 16),
            summary("e", "d", 0, 0));
  }

  @Test
  void aTerminatedComputationIsReportedSo() {
    long id =
        new StoredCutWriter()
            .worker("a", Activity.ACTIVITY_PASSIVE, 1)
            .worker("b", Activity.ACTIVITY_PASSIVE, 1)
            .channel("a", "b")
            .channel("b", "a")
            .commit(store);

    AnalyzeResponse r = analyzer.analyze(id);

    assertThat(r.getTermination().getTerminated()).isTrue();
    assertThat(r.getDeadlock().getDeadlocked()).isFalse();
    assertThat(r.getSummary().getChannelBytes()).isZero();
  }

  @Test
  void anUnknownSnapshotIsNoSuchElement() {
    deadlockedTable().commit(store);

    assertThatThrownBy(() -> analyzer.analyze(99))
        .isInstanceOf(NoSuchElementException.class)
        .hasMessageContaining("snapshot 99 does not exist");
  }

  @Test
  void aPendingSnapshotIsRefusedWithoutReadingItsChannels() {
    long id = deadlockedTable().leavePending(store);

    assertThatThrownBy(() -> analyzer.analyze(id))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("snapshot " + id + " is PENDING, not COMPLETE");
    assertThat(store.channelReads).hasValue(0);
  }

  @Test
  void anAbortedSnapshotIsRefused() {
    long id = deadlockedTable().abort(store);

    assertThatThrownBy(() -> analyzer.analyze(id))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is ABORTED, not COMPLETE");
  }

  @Test
  void aCorruptChannelRecordingIsPassedOnAsCorruption() {
    long id = deadlockedTable().commit(store);
    store.corruptChannel(id, ChannelId.of("d", "e"));

    assertThatThrownBy(() -> analyzer.analyze(id))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("d->e");
  }

  @Test
  void corruptWorkerMetadataIsPassedOnAsCorruption() {
    long id = deadlockedTable().commit(store);
    store.corruptMeta(id, "c");

    assertThatThrownBy(() -> analyzer.analyze(id))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("meta/" + id + "/c");
  }

  @Test
  void aCompleteSnapshotWithoutAWorkersMetadataIsCorrupt() {
    long id = store.allocateSnapshotId();
    Topology topology =
        Topology.newBuilder()
            .addWorkers(WorkerDecl.newBuilder().setWorkerId("a"))
            .addWorkers(WorkerDecl.newBuilder().setWorkerId("b"))
            .build();
    SnapshotManifest pending =
        SnapshotManifest.newBuilder()
            .setSnapshotId(id)
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
            .setTopology(topology)
            .build();
    store.createPending(pending);
    store.putWorkerMeta(id, LocalSnapshotMeta.newBuilder().setWorkerId("a").build());
    store.commit(pending.toBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).build());

    assertThatThrownBy(() -> analyzer.analyze(id))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("no metadata for worker b");
  }

  @Test
  void anImpossibleStateSizeIsCorruption() {
    // 2^64 - 1 bytes: an unsigned size no store can hold.
    long id = new StoredCutWriter().worker("a", Activity.ACTIVITY_PASSIVE, -1L).commit(store);

    assertThatThrownBy(() -> analyzer.analyze(id))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("worker a claims an impossible state size");
  }

  @Test
  void metadataKeptOnlyInTheManifestPiecesIsUsed() {
    long id = deadlockedTable().metaInManifestOnly().commit(store);

    AnalyzeResponse r = analyzer.analyze(id);

    assertThat(r.getDeadlock().getSets(0).getWorkersList()).containsExactly("a", "b", "c");
    assertThat(r.getSummary().getStateBytes()).isEqualTo(1500);
  }

  @Test
  void aWaitAnsweredByAnInFlightMessageIsNoDeadlockInAStoredCut() {
    long id =
        new StoredCutWriter()
            .worker("a", Activity.ACTIVITY_PASSIVE, 0, "b")
            .worker("b", Activity.ACTIVITY_PASSIVE, 0, "a")
            .channel("a", "b", 3)
            .channel("b", "a")
            .commit(store);

    AnalyzeResponse r = analyzer.analyze(id);

    assertThat(r.getDeadlock().getDeadlocked()).isFalse();
    assertThat(r.getDeadlock().getUnblockedByInFlightList())
        .extracting(e -> e.getWaiter() + ">" + e.getHolder())
        .containsExactly("b>a");
  }

  @Test
  void onlyTheChannelsThatHoldMessagesAreRead() {
    long id = deadlockedTable().commit(store);

    AnalyzeResponse r = analyzer.analyze(id);

    assertThat(store.channelReads)
        .as("d->e holds sent - received = 2 messages; the other four are empty by their counts")
        .hasValue(1);
    assertThat(r.getSummary().getPerChannelList()).hasSize(5);
    assertThat(r.getSummary().getChannelBytes()).isEqualTo(16);
  }

  @Test
  void anIdleCutIsAnalyzedWithoutReadingAChannel() {
    long id =
        new StoredCutWriter()
            .worker("a", Activity.ACTIVITY_PASSIVE, 1)
            .worker("b", Activity.ACTIVITY_PASSIVE, 1)
            .channel("a", "b")
            .channel("b", "a")
            .commit(store);

    assertThat(analyzer.analyze(id).getTermination().getTerminated()).isTrue();
    assertThat(store.channelReads).hasValue(0);
  }

  @Test
  void analysingTwiceGivesTheSameAnswer() {
    long id = deadlockedTable().commit(store);

    assertThat(analyzer.analyze(id)).isEqualTo(analyzer.analyze(id));
  }

  private static ChannelRef ref(String from, String to) {
    return ChannelRef.newBuilder().setFrom(from).setTo(to).build();
  }

  private static ChannelSummary summary(String from, String to, long messages, long bytes) {
    return ChannelSummary.newBuilder()
        .setChannel(ref(from, to))
        .setInFlightMessages(messages)
        .setInFlightBytes(bytes)
        .build();
  }
}
