package io.cutpoint.server.grpc;

import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.api.v1.GetChannelStateRequest;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two upload streams for the same worker's piece, their parts interleaved in seeded random orders
 * (and sometimes one of them abandoned part-way), against a real coordinator and store. Whatever
 * the order, at most one of them is answered OK, and a COMPLETE snapshot holds exactly the counters
 * and state of that upload, and its stored cut verifies.
 */
class InterleavedUploadsTest {

  private static final int TRIALS = 150;
  private static final long SEED = Long.getLong("cutpoint.interleave.seed", 20261201L);

  @TempDir Path dir;
  private InProcessCoordinator coordinator;
  private RawWorker a;
  private RawWorker b;

  @BeforeEach
  void setUp() throws Exception {
    // raw workers send no heartbeats by themselves: keep their sessions for the whole run
    coordinator =
        new InProcessCoordinator(
            InProcessCoordinator.config(dir)
                .retainCompleteSnapshots(1000)
                .heartbeatTimeout(java.time.Duration.ofMinutes(10))
                .build());
    a = new RawWorker(coordinator.async(), "a").join(List.of("b"), List.of("b"));
    b = new RawWorker(coordinator.async(), "b").join(List.of("a"), List.of("a"));
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
  }

  @AfterEach
  void tearDown() throws Exception {
    a.close();
    b.close();
    coordinator.close();
  }

  /** a's piece: it sent {@code sent} messages to b and received none. */
  private static List<UploadPart> pieceOfA(long id, long sent, byte[] state) {
    return RawWorker.upload(
        meta(id, "a").addSent(counter("b", sent)).addReceived(counter("b", 0)),
        state,
        3,
        List.of(ChannelRecording.newBuilder().setFrom("b").build()));
  }

  /** b's piece: it had received 1 from a and recorded 2 and 3: consistent only with a sending 3. */
  private static List<UploadPart> pieceOfB(long id) {
    ChannelRecording.Builder rec = ChannelRecording.newBuilder().setFrom("a");
    for (long s = 2; s <= 3; s++) {
      rec.addMessages(
          RecordedMessage.newBuilder().setSeq(s).setPayload(ByteString.copyFromUtf8("m" + s)));
    }
    return RawWorker.upload(
        meta(id, "b").addSent(counter("a", 0)).addReceived(counter("a", 1)),
        "b".getBytes(),
        3,
        List.of(rec.build()));
  }

  /** One client-side upload stream, fed part by part. */
  private final class Stream {
    final List<UploadPart> parts;
    final byte[] state;
    final CompletableFuture<UploadResult> result = new CompletableFuture<>();
    final StreamObserver<UploadPart> up;
    int next;

    Stream(List<UploadPart> parts, byte[] state) {
      this.parts = parts;
      this.state = state;
      // as the worker the header names uploads: with its live session's secret
      String worker = parts.get(0).getHeader().getMeta().getWorkerId();
      up =
          (worker.equals("b") ? b : a)
              .transfers()
              .uploadSnapshot(
                  new StreamObserver<>() {
                    @Override
                    public void onNext(UploadResult r) {
                      result.complete(r);
                    }

                    @Override
                    public void onError(Throwable t) {
                      result.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                      result.completeExceptionally(
                          new AssertionError("completed without a result"));
                    }
                  });
    }

    boolean done() {
      return next >= parts.size();
    }

    void step() {
      up.onNext(parts.get(next++));
      if (done()) {
        up.onCompleted();
      }
    }

    void abandon() {
      next = parts.size();
      up.onError(Status.CANCELLED.withDescription("worker gave up").asRuntimeException());
    }

    Status status() throws Exception {
      try {
        result.get(10, TimeUnit.SECONDS);
        return Status.OK;
      } catch (ExecutionException e) {
        return Status.fromThrowable(e.getCause());
      }
    }

    LocalSnapshotMeta meta() {
      return parts.get(0).getHeader().getMeta();
    }
  }

  @Test
  void whateverTheInterleavingOnlyOneUploadWinsAndTheStoredCutIsTheVerifiedOne() throws Exception {
    Random random = new Random(SEED);
    int complete = 0;
    int failed = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
      String replay = "seed " + SEED + ", trial " + trial;
      long id =
          coordinator
              .admin()
              .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance())
              .getSnapshotId();
      boolean consistentFirst = random.nextBoolean();
      byte[] consistentState = ("consistent state " + trial).getBytes();
      byte[] otherState = ("the other upload's state, longer " + trial).getBytes();
      Stream consistent = new Stream(pieceOfA(id, 3, consistentState), consistentState);
      Stream other = new Stream(pieceOfA(id, 9, otherState), otherState);
      List<Stream> streams =
          consistentFirst ? List.of(consistent, other) : List.of(other, consistent);
      Stream abandoned = random.nextInt(4) == 0 ? streams.get(random.nextInt(2)) : null;
      int abandonAt = random.nextInt(8);
      int steps = 0;
      while (!streams.get(0).done() || !streams.get(1).done()) {
        Stream s = streams.get(random.nextInt(2));
        if (s.done()) {
          continue;
        }
        if (s == abandoned && s.next >= abandonAt) {
          s.abandon();
        } else {
          s.step();
        }
        steps++;
      }
      List<Stream> ok = new ArrayList<>();
      for (Stream s : streams) {
        Status status = s.status();
        if (status.isOk()) {
          ok.add(s);
        } else if (s != abandoned) {
          assertThat(status.getCode())
              .as(replay + ": a refused upload says why")
              .isIn(Status.Code.ALREADY_EXISTS, Status.Code.FAILED_PRECONDITION);
        }
      }
      assertThat(ok)
          .as(replay + ": at most one upload of a's piece is answered OK")
          .hasSizeLessThanOrEqualTo(1);
      if (ok.isEmpty()) { // the admitted one was abandoned after the other was refused: a retries
        Stream retry = new Stream(pieceOfA(id, 3, consistentState), consistentState);
        while (!retry.done()) {
          retry.step();
        }
        assertThat(retry.status().isOk())
            .as(replay + ": a retry after an abandoned upload is admitted")
            .isTrue();
        ok.add(retry);
      }
      RawWorker.send(coordinator.async(), pieceOfB(id)).get(10, TimeUnit.SECONDS);

      Stream winner = ok.get(0);
      SnapshotManifest m = manifest(id);
      if (winner.meta().getSent(0).getCount() == 3) {
        assertThat(m.getStatus()).as(replay).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
        WorkerPiece stored =
            m.getPiecesList().stream()
                .filter(p -> p.getWorkerId().equals("a"))
                .findFirst()
                .orElseThrow();
        assertThat(stored.getMeta())
            .as(replay + ": the stored counters are the winner's")
            .isEqualTo(winner.meta());
        assertThat(CutVerifier.verify(storedCut(m)))
            .as(replay + ": the stored cut verifies")
            .isEmpty();
        assertThat(download(id))
            .as(replay + ": the stored state is the winner's")
            .isEqualTo(winner.state);
        complete++;
      } else {
        assertThat(m.getStatus())
            .as(replay + ": a's 9 sent against b's 3 recorded is no consistent cut")
            .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_FAILED);
        failed++;
      }
      assertThat(steps).isPositive();
    }
    assertThat(complete).as("both outcomes are exercised").isGreaterThan(TRIALS / 5);
    assertThat(failed).as("both outcomes are exercised").isGreaterThan(TRIALS / 5);
  }

  @Test
  void anUploadAbandonedPartWayLeavesNothingThatARetryWouldCommit() throws Exception {
    long id =
        coordinator
            .admin()
            .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance())
            .getSnapshotId();
    byte[] longer = "a longer state, abandoned after five of its chunks".getBytes();
    Stream abandoned = new Stream(pieceOfA(id, 3, longer), longer);
    for (int part = 0; part < 6; part++) {
      abandoned.step(); // the header, then chunks 0 to 4
    }
    abandoned.abandon();
    byte[] shorter = "short".getBytes(); // two chunks
    // the abandoned upload frees its claim once it has handed off the discard of its parts
    Stream retry =
        Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(10))
            .until(
                () -> {
                  Stream s = new Stream(pieceOfA(id, 3, shorter), shorter);
                  while (!s.done()) {
                    s.step();
                  }
                  return s.status().isOk() ? s : null;
                },
                java.util.Objects::nonNull);
    RawWorker.send(coordinator.async(), pieceOfB(id)).get(10, TimeUnit.SECONDS);

    SnapshotManifest m = manifest(id);
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(download(id)).isEqualTo(retry.state);
  }

  private SnapshotManifest manifest(long id) {
    return coordinator
        .admin()
        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
        .getManifest();
  }

  /** The cut as a user reads it back: stored counters and stored channel contents. */
  private Cut storedCut(SnapshotManifest m) {
    List<LocalSnapshot> pieces = new ArrayList<>();
    List<ChannelId> channels = List.of(ChannelId.of("a", "b"), ChannelId.of("b", "a"));
    for (WorkerPiece p : m.getPiecesList()) {
      SortedMap<String, List<io.cutpoint.cut.InTransitMessage>> recorded = new TreeMap<>();
      for (ChannelCounter in : p.getMeta().getReceivedList()) {
        recorded.put(
            in.getPeer(),
            coordinator
                .admin()
                .getChannelState(
                    GetChannelStateRequest.newBuilder()
                        .setSnapshotId(m.getSnapshotId())
                        .setChannel(
                            ChannelRef.newBuilder().setFrom(in.getPeer()).setTo(p.getWorkerId()))
                        .setPageSize(1000)
                        .build())
                .getMessagesList()
                .stream()
                .map(
                    r ->
                        new io.cutpoint.cut.InTransitMessage(
                            r.getSeq(), r.getPayload().toByteArray()))
                .toList());
      }
      pieces.add(
          new LocalSnapshot(
              m.getSnapshotId(),
              p.getWorkerId(),
              counters(p.getMeta().getSentList()),
              counters(p.getMeta().getReceivedList()),
              recorded,
              null));
    }
    return Cut.of(
        m.getSnapshotId(), java.util.Set.of("a", "b"), java.util.Set.copyOf(channels), pieces);
  }

  private static SortedMap<String, Long> counters(List<ChannelCounter> list) {
    SortedMap<String, Long> m = new TreeMap<>();
    list.forEach(c -> m.put(c.getPeer(), c.getCount()));
    return m;
  }

  private byte[] download(long id) {
    ByteArrayOutputStream state = new ByteArrayOutputStream();
    a.blockingTransfers(coordinator.channel)
        .downloadSnapshot(DownloadRequest.newBuilder().setSnapshotId(id).setWorkerId("a").build())
        .forEachRemaining(
            (DownloadPart p) -> {
              if (p.hasStateChunk()) {
                state.writeBytes(p.getStateChunk().getData().toByteArray());
              }
            });
    return state.toByteArray();
  }
}
