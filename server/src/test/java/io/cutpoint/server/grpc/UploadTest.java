package io.cutpoint.server.grpc;

import static io.cutpoint.server.testing.RawPair.statusOf;
import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.api.v1.GetChannelStateRequest;
import io.cutpoint.api.v1.GetChannelStateResponse;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.UploadHeader;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.api.v1.UploadTrailer;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two raw workers a <-> b upload their pieces by hand. */
class UploadTest {

  @TempDir Path dir;
  private RawPair pair;
  private InProcessCoordinator coordinator;
  private RawWorker a;
  private RawWorker b;
  private long id;

  @BeforeEach
  void setUp() throws Exception {
    // raw workers send no heartbeats by themselves: a 64 MiB upload on a loaded machine must not
    // outlast their sessions
    pair =
        new RawPair(
            InProcessCoordinator.config(dir)
                .heartbeatTimeout(java.time.Duration.ofMinutes(10))
                .build());
    coordinator = pair.coordinator;
    a = pair.a;
    b = pair.b;
    id = pair.snapshotId;
  }

  @AfterEach
  void tearDown() throws Exception {
    pair.close();
  }

  private List<UploadPart> pieceOfA(byte[] state) {
    return pair.pieceOfA(state);
  }

  private List<UploadPart> pieceOfB(byte[] state, long... recordedSeqs) {
    return pair.pieceOfB(state, recordedSeqs);
  }

  private SnapshotManifest manifest() {
    return coordinator
        .admin()
        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
        .getManifest();
  }

  @Test
  void consistentPiecesAreStoredVerifiedAndCommittedAndCanBeDownloaded() throws Exception {
    byte[] stateA = "state of worker a, longer than a chunk".getBytes();
    assertThat(
            RawWorker.send(coordinator.async(), pieceOfA(stateA))
                .get(10, TimeUnit.SECONDS)
                .getStoredStateBytes())
        .isEqualTo(stateA.length);
    assertThat(manifest().getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_PENDING);
    RawWorker.send(coordinator.async(), pieceOfB("b".getBytes(), 2, 3)).get(10, TimeUnit.SECONDS);

    SnapshotManifest m = manifest();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(m.getInFlightMessages()).isEqualTo(2);
    assertThat(m.getTotalStateBytes()).isEqualTo(stateA.length + 1);
    assertThat(m.getPiecesList()).extracting(p -> p.getWorkerId()).containsExactly("a", "b");

    GetChannelStateResponse page =
        coordinator
            .admin()
            .getChannelState(
                GetChannelStateRequest.newBuilder()
                    .setSnapshotId(id)
                    .setChannel(ChannelRef.newBuilder().setFrom("a").setTo("b"))
                    .setPageSize(1)
                    .build());
    assertThat(page.getTotalMessages()).isEqualTo(2);
    assertThat(page.getMessages(0).getSeq()).isEqualTo(2);
    GetChannelStateResponse next =
        coordinator
            .admin()
            .getChannelState(
                GetChannelStateRequest.newBuilder()
                    .setSnapshotId(id)
                    .setChannel(ChannelRef.newBuilder().setFrom("a").setTo("b"))
                    .setPageSize(1)
                    .setPageToken(page.getNextPageToken())
                    .build());
    assertThat(next.getMessages(0).getPayload().toStringUtf8()).isEqualTo("m3");
    assertThat(next.getNextPageToken()).isEmpty();

    java.io.ByteArrayOutputStream state = new java.io.ByteArrayOutputStream();
    List<String> kinds = new ArrayList<>();
    Iterator<DownloadPart> parts =
        a.blockingTransfers(coordinator.channel)
            .downloadSnapshot(
                DownloadRequest.newBuilder().setSnapshotId(id).setWorkerId("a").build());
    parts.forEachRemaining(
        p -> {
          kinds.add(p.getPartCase().name());
          if (p.hasStateChunk()) {
            state.writeBytes(p.getStateChunk().getData().toByteArray());
          }
        });
    assertThat(state.toByteArray()).isEqualTo(stateA);
    assertThat(kinds.get(0)).isEqualTo("HEADER");
    assertThat(kinds).endsWith("CHANNEL", "TRAILER");
  }

  @Test
  void piecesThatBreakTheCutInvariantMakeTheSnapshotFailWithTheReasons() throws Exception {
    RawWorker.send(coordinator.async(), pieceOfA("a".getBytes())).get(10, TimeUnit.SECONDS);
    // b recorded only message 3: message 2 is missing from the cut
    RawWorker.send(coordinator.async(), pieceOfB("b".getBytes(), 3)).get(10, TimeUnit.SECONDS);
    SnapshotManifest m = manifest();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_FAILED);
    assertThat(m.getViolationsList()).isNotEmpty();
    assertThat(m.getViolationsList().get(0).getChannel().getFrom()).isEqualTo("a");
    assertThat(m.getReason()).contains("recorded 1 messages in transit, expected 2");
  }

  @Test
  void aChunkWithABadCrcIsRefusedWithInvalidArgument() throws Exception {
    List<UploadPart> parts = new ArrayList<>(pieceOfA("0123456789".getBytes()));
    UploadPart chunk = parts.get(1);
    parts.set(
        1,
        chunk.toBuilder()
            .setStateChunk(
                chunk.getStateChunk().toBuilder().setCrc32C(chunk.getStateChunk().getCrc32C() ^ 1))
            .build());
    Status s = statusOf(RawWorker.send(coordinator.async(), parts));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("chunk 0 fails its CRC32C");
  }

  @Test
  void aChunkWithOneCorruptedByteIsRefusedWithInvalidArgument() throws Exception {
    List<UploadPart> parts = RawWorker.withFlippedBit(pieceOfA("0123456789".getBytes()), 1, 2);
    Status s = statusOf(RawWorker.send(coordinator.async(), parts));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("chunk 0 fails its CRC32C");
  }

  @Test
  void aWholeStateThatFailsItsCrcIsRefusedWithInvalidArgument() throws Exception {
    List<UploadPart> parts = new ArrayList<>(pieceOfA("0123456789".getBytes()));
    UploadPart header = parts.get(0);
    parts.set(
        0,
        header.toBuilder()
            .setHeader(
                header.getHeader().toBuilder()
                    .setMeta(header.getHeader().getMeta().toBuilder().setStateCrc32C(12345)))
            .build());
    Status s = statusOf(RawWorker.send(coordinator.async(), parts));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("whole state fails its CRC32C");
  }

  /**
   * What a hostile worker could pile up in the coordinator's memory and store within one upload,
   * until the cut's verification: empty numbered chunks (any number fit the declared size) and
   * recordings from made-up senders (each with its own entry and store batches).
   */
  @Test
  void emptyChunksAndRecordingsFromSendersTheHeaderDoesNotCountAreRefused() throws Exception {
    List<UploadPart> parts = new ArrayList<>(pieceOfA("0123456789".getBytes()));
    parts.add(
        1,
        UploadPart.newBuilder()
            .setStateChunk(io.cutpoint.api.v1.StateChunk.newBuilder().setIndex(0))
            .build());
    Status empty = statusOf(RawWorker.send(coordinator.async(), parts));
    assertThat(empty.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(empty.getDescription()).contains("state chunk 0 is empty");

    List<UploadPart> stranger = new ArrayList<>(pieceOfA("0123456789".getBytes()));
    int trailer = stranger.size() - 1;
    stranger.add(
        trailer,
        UploadPart.newBuilder()
            .setChannel(ChannelRecording.newBuilder().setFrom("made-up-sender"))
            .build());
    Status s = statusOf(RawWorker.send(coordinator.async(), stranger));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription())
        .contains("channel recording from made-up-sender")
        .contains("not an incoming channel of a");

    assertThat(statusOf(RawWorker.send(coordinator.async(), pieceOfA("0123456789".getBytes()))))
        .as("the piece itself goes through afterwards")
        .isEqualTo(Status.OK);
  }

  @Test
  void chunksOutOfOrderAreRefusedWithInvalidArgument() throws Exception {
    List<UploadPart> parts = new ArrayList<>(pieceOfA("0123456789".getBytes()));
    UploadPart first = parts.get(1);
    parts.set(1, parts.get(2));
    parts.set(2, first);
    Status s = statusOf(RawWorker.send(coordinator.async(), parts));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("out of order");
  }

  @Test
  void uploadsForUnknownSnapshotsOrWorkersWithoutASessionAreRefused() throws Exception {
    List<UploadPart> bogus = RawWorker.upload(meta(id + 100, "a"), new byte[0], 4, List.of());
    assertThat(statusOf(RawWorker.send(coordinator.async(), bogus)).getCode())
        .isEqualTo(Status.Code.NOT_FOUND);
    List<UploadPart> stranger = RawWorker.upload(meta(id, "stranger"), new byte[0], 4, List.of());
    assertThat(statusOf(RawWorker.send(coordinator.async(), stranger)).getCode())
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    List<UploadPart> noTrailer = pieceOfA(new byte[3]).subList(0, 2);
    Status s = statusOf(RawWorker.send(coordinator.async(), noTrailer));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("without a trailer");
  }

  @Test
  void aSecondUploadOfADeliveredPieceIsRefusedAndALateOneToo() throws Exception {
    RawWorker.send(coordinator.async(), pieceOfA("a".getBytes())).get(10, TimeUnit.SECONDS);
    assertThat(statusOf(RawWorker.send(coordinator.async(), pieceOfA("a".getBytes()))).getCode())
        .isEqualTo(Status.Code.ALREADY_EXISTS);
    RawWorker.send(coordinator.async(), pieceOfB("b".getBytes(), 2, 3)).get(10, TimeUnit.SECONDS);
    assertThat(
            statusOf(RawWorker.send(coordinator.async(), pieceOfB("b".getBytes(), 2, 3))).getCode())
        .isEqualTo(Status.Code.FAILED_PRECONDITION);
  }

  @Test
  void downloadsAreOnlyForCompleteSnapshotsAndLiveWorkers() {
    assertThatThrownBy(
            () ->
                a.blockingTransfers(coordinator.channel)
                    .downloadSnapshot(
                        DownloadRequest.newBuilder().setSnapshotId(id).setWorkerId("a").build())
                    .hasNext())
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    assertThatThrownBy(
            () ->
                coordinator
                    .blocking()
                    .downloadSnapshot(
                        DownloadRequest.newBuilder()
                            .setSnapshotId(id)
                            .setWorkerId("nobody")
                            .build())
                    .hasNext())
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
  }

  @Test
  void statesOf64MiBPerWorkerMoveInChunksAndCommit() throws Exception {
    int size = 64 << 20;
    int chunk = 1 << 20;
    long started = System.nanoTime();
    CompletableFuture<UploadResult> upA =
        RawWorker.send(
            coordinator.async(),
            bigUpload(
                meta(id, "a").addSent(counter("b", 0)).addReceived(counter("b", 0)),
                size,
                chunk,
                1,
                null));
    CompletableFuture<UploadResult> upB =
        RawWorker.send(
            coordinator.async(),
            bigUpload(
                meta(id, "b").addSent(counter("a", 0)).addReceived(counter("a", 0)),
                size,
                chunk,
                2,
                "a"));
    assertThat(upA.get(60, TimeUnit.SECONDS).getStoredStateBytes()).isEqualTo(size);
    assertThat(upB.get(60, TimeUnit.SECONDS).getStoredStateBytes()).isEqualTo(size);
    long millis = (System.nanoTime() - started) / 1_000_000;
    SnapshotManifest m = manifest();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(m.getTotalStateBytes()).isEqualTo(2L * size);
    assertThat(m.getPiecesList()).allSatisfy(p -> assertThat(p.getStateChunks()).isEqualTo(64));
    // b recorded on a's marker: the stored piece says so (and a's, recorded on request, names none)
    assertThat(m.getPiecesList())
        .extracting(p -> p.getMeta().getFirstMarkerFrom())
        .containsExactly("", "a");
    System.out.printf("two 64 MiB uploads committed in %d ms%n", millis);

    CRC32C crc = new CRC32C();
    long[] bytes = {0};
    b.blockingTransfers(coordinator.channel)
        .downloadSnapshot(DownloadRequest.newBuilder().setSnapshotId(id).setWorkerId("b").build())
        .forEachRemaining(
            p -> {
              if (p.hasStateChunk()) {
                crc.update(p.getStateChunk().getData().asReadOnlyByteBuffer());
                bytes[0] += p.getStateChunk().getData().size();
              }
            });
    assertThat(bytes[0]).isEqualTo(size);
    assertThat((int) crc.getValue()).isEqualTo(m.getPieces(1).getMeta().getStateCrc32C());
  }

  /** An upload whose chunks are generated one at a time as the transport asks for them. */
  private static Iterable<UploadPart> bigUpload(
      LocalSnapshotMeta.Builder meta, int size, int chunk, int seed, String firstMarker) {
    CRC32C whole = new CRC32C();
    for (int i = 0; i < size / chunk; i++) {
      whole.update(chunkData(seed, i, chunk));
    }
    meta.setStateBytes(size).setStateCrc32C((int) whole.getValue());
    List<UploadPart> head =
        List.of(UploadPart.newBuilder().setHeader(UploadHeader.newBuilder().setMeta(meta)).build());
    return () ->
        new Iterator<>() {
          int next = -1;
          final int chunks = size / chunk;

          @Override
          public boolean hasNext() {
            return next <= chunks + 1;
          }

          @Override
          public UploadPart next() {
            int i = next++;
            if (i == -1) {
              return head.get(0);
            }
            if (i < chunks) {
              return RawWorker.chunk(i, chunkData(seed, i, chunk));
            }
            if (i == chunks) {
              ChannelRecording.Builder r =
                  ChannelRecording.newBuilder().setFrom(meta.getWorkerId().equals("a") ? "b" : "a");
              if (firstMarker != null) {
                r.setFirstMarker(true);
              }
              return UploadPart.newBuilder().setChannel(r).build();
            }
            return UploadPart.newBuilder()
                .setTrailer(
                    UploadTrailer.newBuilder().setStateChunks(chunks).setRecordedMessages(0))
                .build();
          }
        };
  }

  private static byte[] chunkData(int seed, int index, int size) {
    byte[] data = new byte[size];
    new java.util.Random(seed * 100_003L + index).nextBytes(data);
    return data;
  }
}
