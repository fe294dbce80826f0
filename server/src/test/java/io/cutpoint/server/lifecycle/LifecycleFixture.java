package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.server.membership.Declaration;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.server.testing.DirectStoreEffects;
import io.cutpoint.server.testing.ManualClock;
import io.cutpoint.server.testing.ManualScheduler;
import io.cutpoint.server.testing.RecordingStore;
import io.cutpoint.storage.SnapshotStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** A lifecycle over a manual clock and scheduler, a recording store and a ring a -> b -> c -> a. */
final class LifecycleFixture {

  final ManualClock clock = new ManualClock();
  final ManualScheduler scheduler = new ManualScheduler(clock);

  /** The recording store, or null when the fixture runs over another store. */
  final RecordingStore store;

  final DirectStoreEffects effects;
  final Membership membership = new Membership();
  final List<String> commands = new ArrayList<>();
  final List<String> outcomes = new ArrayList<>();
  final List<Long> toleranceExceeded = new ArrayList<>();
  final SnapshotLifecycle lifecycle;

  LifecycleFixture(Duration timeout, Duration minPause, int maxConcurrent, int tolerable) {
    this(new RecordingStore(), timeout, minPause, maxConcurrent, tolerable);
  }

  /** A lifecycle over {@code backing}, with the default settings. */
  LifecycleFixture(SnapshotStore backing) {
    this(backing, Duration.ofSeconds(10), Duration.ZERO, 1, 3);
  }

  private LifecycleFixture(
      SnapshotStore backing,
      Duration timeout,
      Duration minPause,
      int maxConcurrent,
      int tolerable) {
    this.store = backing instanceof RecordingStore r ? r : null;
    this.effects = new DirectStoreEffects(backing);
    WorkerCommands wc =
        new WorkerCommands() {
          @Override
          public void startSnapshot(String workerId, long snapshotId, long epoch) {
            commands.add("start " + workerId + " " + snapshotId);
          }

          @Override
          public void abortSnapshot(String workerId, long snapshotId, String reason) {
            commands.add("abort " + workerId + " " + snapshotId);
          }
        };
    SnapshotListener listener =
        new SnapshotListener() {
          @Override
          public void completed(CompletedSnapshot s) {
            outcomes.add(s.id() + " COMPLETE");
          }

          @Override
          public void ended(
              SnapshotManifest m, FailureReason reason, Duration d, boolean exceeded) {
            outcomes.add(
                m.getSnapshotId()
                    + " "
                    + m.getStatus().name().replace("SNAPSHOT_STATUS_", "")
                    + " "
                    + reason);
            if (exceeded) {
              toleranceExceeded.add(m.getSnapshotId());
            }
          }
        };
    lifecycle =
        new SnapshotLifecycle(
            new SnapshotLifecycle.Settings(timeout, minPause, maxConcurrent, tolerable),
            clock,
            scheduler,
            effects,
            membership::view,
            wc,
            listener);
  }

  LifecycleFixture() {
    this(Duration.ofSeconds(10), Duration.ZERO, 1, 3);
  }

  /** Joins a ring a -> b -> c -> a. */
  LifecycleFixture ring() {
    join("a", List.of("b"), List.of("c"));
    join("b", List.of("c"), List.of("a"));
    join("c", List.of("a"), List.of("b"));
    return this;
  }

  long join(String id, List<String> out, List<String> in) {
    var outcome = membership.join(Declaration.of(id, "localhost:1", out, in), clock.millis());
    return ((Membership.Accepted) outcome).token();
  }

  long start() {
    TriggerResult r = lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null).join();
    if (r instanceof TriggerResult.Refused refused) {
      throw new AssertionError("refused: " + refused);
    }
    return ((TriggerResult.Started) r).snapshotId();
  }

  /** Delivers {@code piece}, as an upload's trailer does. */
  AckResult deliver(Piece piece) {
    return lifecycle.acknowledge(piece);
  }

  /**
   * A piece of worker {@code id}: sent and received counts per peer, recorded seqs per sending
   * peer, and the peer whose marker made it record (null for an initiator).
   */
  static Piece piece(
      long snapshot,
      String id,
      Map<String, Long> sent,
      Map<String, Long> received,
      Map<String, List<Long>> recorded,
      String firstMarkerFrom) {
    SortedMap<String, List<InTransitMessage>> rec = new TreeMap<>();
    recorded.forEach(
        (peer, seqs) ->
            rec.put(peer, seqs.stream().map(s -> new InTransitMessage(s, new byte[0])).toList()));
    LocalSnapshotMeta.Builder meta =
        LocalSnapshotMeta.newBuilder().setSnapshotId(snapshot).setWorkerId(id).setStateBytes(10);
    sent.forEach((p, n) -> meta.addSent(ChannelCounter.newBuilder().setPeer(p).setCount(n)));
    received.forEach(
        (p, n) -> meta.addReceived(ChannelCounter.newBuilder().setPeer(p).setCount(n)));
    LocalSnapshot cut =
        new LocalSnapshot(
            snapshot, id, new TreeMap<>(sent), new TreeMap<>(received), rec, firstMarkerFrom);
    return new Piece(meta.build(), cut, 1, 0);
  }

  /** Consistent pieces of the ring with no traffic, a initiating. */
  static List<Piece> quietRing(long snapshot) {
    return List.of(
        piece(snapshot, "a", Map.of("b", 0L), Map.of("c", 0L), Map.of(), null),
        piece(snapshot, "b", Map.of("c", 0L), Map.of("a", 0L), Map.of(), "a"),
        piece(snapshot, "c", Map.of("a", 0L), Map.of("b", 0L), Map.of(), "b"));
  }
}
