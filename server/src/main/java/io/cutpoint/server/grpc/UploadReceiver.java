package io.cutpoint.server.grpc;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.StateChunk;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.api.v1.UploadTrailer;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.server.CoordinatorContext;
import io.cutpoint.server.lifecycle.AckResult;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.lifecycle.Piece;
import io.cutpoint.server.membership.WorkerIds;
import io.cutpoint.storage.StoreException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Receives one worker's piece of a snapshot: header, state chunks, channel recordings, trailer.
 * Each chunk and recording is checked and stored as it arrives; only the sequence numbers of the
 * recorded messages stay in memory (for the cut check). The first bad part ends the upload with a
 * status; later parts are ignored.
 *
 * <p>Threads: the parts arrive on a transport thread, one at a time, and are checked and stored
 * there. The admission (the header) asks the coordinator loop and waits for its answer, so that no
 * part is stored before the upload holds the worker's slot, nor before the snapshot's pending
 * manifest is written (it is written behind the start commands, and is almost always in by the time
 * a piece arrives); the trailer posts the piece to the loop and the loop answers the upload once
 * the lifecycle has taken it.
 */
final class UploadReceiver implements StreamObserver<UploadPart> {

  /** Largest state chunk accepted. */
  static final int MAX_CHUNK_BYTES = 1 << 20;

  private static final byte[] NO_PAYLOAD = new byte[0];

  /** How long an upload waits for the loop's answer (it answers in microseconds). */
  private static final long LOOP_WAIT_SECONDS = 30;

  private enum Phase {
    HEADER,
    STATE,
    CHANNELS,
    DONE
  }

  private final CoordinatorContext ctx;
  private final StreamObserver<UploadResult> out;
  private Phase phase = Phase.HEADER;
  private LocalSnapshotMeta meta;
  private final CRC32C stateCrc = new CRC32C();
  private long stateBytes;
  private int chunks;
  private final SortedMap<String, List<InTransitMessage>> recorded = new TreeMap<>();
  private String firstMarkerFrom;
  private long recordedMessages;
  private long recordedBytes;

  UploadReceiver(CoordinatorContext ctx, StreamObserver<UploadResult> out) {
    this.ctx = ctx;
    this.out = out;
  }

  @Override
  public void onNext(UploadPart part) {
    if (phase == Phase.DONE) {
      return;
    }
    try {
      switch (part.getPartCase()) {
        case HEADER -> header(part.getHeader().getMeta());
        case STATE_CHUNK -> chunk(part.getStateChunk());
        case CHANNEL -> channel(part.getChannel());
        case TRAILER -> trailer(part.getTrailer());
        case PART_NOT_SET -> throw invalid("empty upload part");
      }
    } catch (StatusRuntimeException e) {
      fail(e.getStatus());
    } catch (io.cutpoint.storage.NotPendingException e) {
      fail(Status.FAILED_PRECONDITION.withDescription(e.getMessage()));
    } catch (io.cutpoint.storage.NoSuchSnapshotException e) {
      fail(Status.NOT_FOUND.withDescription(e.getMessage()));
    } catch (IllegalArgumentException e) {
      fail(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
    } catch (StoreException e) {
      fail(Status.UNAVAILABLE.withDescription("store failed: " + e.getMessage()));
    }
  }

  private void header(LocalSnapshotMeta m) {
    if (phase != Phase.HEADER) {
      throw invalid("header sent twice");
    }
    if (m.getSnapshotId() <= 0) {
      throw invalid("header has no snapshot id");
    }
    WorkerIds.problem(m.getWorkerId())
        .ifPresent(
            p -> {
              throw invalid("header: " + p);
            });
    PieceMetaCheck.problem(m, ctx.config().limits().maxChannelsPerWorker())
        .ifPresent(
            p -> {
              throw invalid(p);
            });
    OwnSession.require(ctx, m.getWorkerId(), "upload");
    ctx.lifecycle()
        .pendingManifest(m.getSnapshotId())
        .filter(snap -> snap.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING)
        .filter(snap -> snap.getEpoch() != m.getEpoch())
        .ifPresent(
            snap -> {
              throw Status.FAILED_PRECONDITION
                  .withDescription(
                      "the piece was recorded in epoch "
                          + m.getEpoch()
                          + ", snapshot "
                          + m.getSnapshotId()
                          + " belongs to epoch "
                          + snap.getEpoch())
                  .asRuntimeException();
            });
    Admitted admitted = admit(m);
    switch (admitted.admission()) {
      case ADMITTED -> {}
      case DUPLICATE ->
          throw Status.ALREADY_EXISTS
              .withDescription(
                  "worker "
                      + m.getWorkerId()
                      + " already delivered its piece of snapshot "
                      + m.getSnapshotId())
              .asRuntimeException();
      case IN_PROGRESS ->
          throw Status.ALREADY_EXISTS
              .withDescription(
                  "another upload of worker "
                      + m.getWorkerId()
                      + "'s piece of snapshot "
                      + m.getSnapshotId()
                      + " is under way")
              .asRuntimeException();
      case UNKNOWN ->
          throw Status.NOT_FOUND
              .withDescription("no pending snapshot " + m.getSnapshotId())
              .asRuntimeException();
      case ENDED ->
          throw Status.FAILED_PRECONDITION
              .withDescription("snapshot " + m.getSnapshotId() + " is no longer pending")
              .asRuntimeException();
      case NOT_A_PARTICIPANT ->
          throw Status.PERMISSION_DENIED
              .withDescription(
                  "snapshot " + m.getSnapshotId() + " does not cover worker " + m.getWorkerId())
              .asRuntimeException();
    }
    meta = m; // from here on this upload holds the worker's slot, until acknowledged or released
    // no part is stored before the snapshot's pending manifest, which is written behind its start
    await(admitted.written(), "the store did not record snapshot " + m.getSnapshotId());
    // an earlier attempt of this upload may have stored parts before it broke: start clean
    ctx.store().discardPieces(m.getSnapshotId(), m.getWorkerId());
    phase = Phase.STATE;
  }

  /**
   * The loop's answer to an upload's header: the admission and, when admitted, what completes once
   * the snapshot's pending manifest is written.
   */
  private record Admitted(
      io.cutpoint.server.lifecycle.Admission admission,
      java.util.concurrent.CompletableFuture<?> written) {}

  /** Asks the loop whether this upload may proceed, and waits for the answer. */
  private Admitted admit(LocalSnapshotMeta m) {
    return onLoop(
        () -> {
          var admission = ctx.lifecycle().admit(m.getSnapshotId(), m.getWorkerId(), this);
          return new Admitted(
              admission,
              admission == io.cutpoint.server.lifecycle.Admission.ADMITTED
                  ? ctx.lifecycle().written(m.getSnapshotId())
                  : null);
        });
  }

  /** Runs {@code body} on the coordinator loop and waits for its answer (microseconds). */
  private <T> T onLoop(java.util.function.Supplier<T> body) {
    return await(ctx.loop().call(body), "the coordinator did not answer the upload");
  }

  /** Waits for {@code answer} (normally done, or done within microseconds). */
  private static <T> T await(java.util.concurrent.Future<T> answer, String unanswered) {
    try {
      return answer.get(LOOP_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw Status.UNAVAILABLE.withDescription(unanswered + ": " + e).asRuntimeException();
    }
  }

  private void chunk(StateChunk c) {
    if (phase != Phase.STATE) {
      throw invalid(
          phase == Phase.HEADER
              ? "state chunk before the header"
              : "state chunk after channel recordings");
    }
    if (c.getIndex() != chunks) {
      throw invalid("state chunk " + c.getIndex() + " out of order: expected " + chunks);
    }
    byte[] data = c.getData().toByteArray();
    if (data.length > MAX_CHUNK_BYTES) {
      throw invalid(
          "state chunk "
              + c.getIndex()
              + " has "
              + data.length
              + " bytes, at most "
              + MAX_CHUNK_BYTES);
    }
    int crc = Crc32c.of(data);
    if (crc != c.getCrc32C()) {
      throw invalid(
          "state chunk "
              + c.getIndex()
              + " fails its CRC32C: computed "
              + Crc32c.hex(crc)
              + ", sent "
              + Crc32c.hex(c.getCrc32C()));
    }
    if (stateBytes + data.length > meta.getStateBytes()) {
      throw invalid("state chunks exceed the declared " + meta.getStateBytes() + " bytes");
    }
    // checked above: the store frames the chunk from this CRC without reading it again
    ctx.store().putCheckedStateChunk(meta.getSnapshotId(), meta.getWorkerId(), chunks, data, crc);
    stateCrc.update(data);
    stateBytes += data.length;
    chunks++;
  }

  private void channel(ChannelRecording r) {
    if (phase == Phase.HEADER) {
      throw invalid("channel recording before the header");
    }
    phase = Phase.CHANNELS;
    String from = r.getFrom();
    WorkerIds.problem(from)
        .ifPresent(
            p -> {
              throw invalid("channel recording: " + p);
            });
    if (from.equals(meta.getWorkerId())) {
      throw invalid("channel recording from the worker to itself");
    }
    if (r.getFirstMarker()) {
      if (firstMarkerFrom != null && !firstMarkerFrom.equals(from)) {
        throw invalid("two channels marked as first marker: " + firstMarkerFrom + " and " + from);
      }
      firstMarkerFrom = from;
    }
    List<InTransitMessage> kept = recorded.computeIfAbsent(from, k -> new ArrayList<>());
    List<InTransitMessage> toStore = new ArrayList<>(r.getMessagesCount());
    long last = kept.isEmpty() ? 0 : kept.get(kept.size() - 1).seq();
    for (RecordedMessage m : r.getMessagesList()) {
      if (m.getSeq() <= last) {
        throw invalid(
            "channel "
                + from
                + "->"
                + meta.getWorkerId()
                + ": recorded seq "
                + m.getSeq()
                + " after "
                + last
                + "; sequence numbers must increase");
      }
      last = m.getSeq();
      byte[] payload = m.getPayload().toByteArray();
      recordedBytes += payload.length;
      toStore.add(new InTransitMessage(m.getSeq(), payload));
      kept.add(new InTransitMessage(m.getSeq(), NO_PAYLOAD));
    }
    long limit = ctx.config().maxRecordedBytesPerSnapshot();
    if (limit > 0 && recordedBytes > limit) {
      long id = meta.getSnapshotId();
      String message =
          "worker "
              + meta.getWorkerId()
              + " uploaded more than "
              + limit
              + " bytes of recorded messages";
      onLoop(
          () ->
              ctx.lifecycle().abort(id, FailureReason.LOCAL_FAILURE, message)); // before the answer
      throw Status.RESOURCE_EXHAUSTED
          .withDescription("recorded messages exceed the limit of " + limit + " bytes per snapshot")
          .asRuntimeException();
    }
    recordedMessages += toStore.size();
    if (!toStore.isEmpty()) {
      ctx.store()
          .putChannelRecording(
              meta.getSnapshotId(), ChannelId.of(from, meta.getWorkerId()), toStore);
    }
  }

  private void trailer(UploadTrailer t) {
    if (phase == Phase.HEADER) {
      throw invalid("trailer before the header");
    }
    if (t.getStateChunks() != chunks) {
      throw invalid(
          "trailer counts " + t.getStateChunks() + " state chunks, " + chunks + " arrived");
    }
    if (t.getRecordedMessages() != recordedMessages) {
      throw invalid(
          "trailer counts "
              + t.getRecordedMessages()
              + " recorded messages, "
              + recordedMessages
              + " arrived");
    }
    if (stateBytes != meta.getStateBytes()) {
      throw invalid(
          "state has " + stateBytes + " bytes, the header declares " + meta.getStateBytes());
    }
    int whole = Crc32c.value(stateCrc);
    if (whole != meta.getStateCrc32C()) {
      throw invalid(
          "the whole state fails its CRC32C: computed "
              + Crc32c.hex(whole)
              + ", declared "
              + Crc32c.hex(meta.getStateCrc32C()));
    }
    LocalSnapshot cut =
        new LocalSnapshot(
            meta.getSnapshotId(),
            meta.getWorkerId(),
            counters(meta.getSentList(), "sent"),
            counters(meta.getReceivedList(), "received"),
            recorded,
            firstMarkerFrom);
    // the channel flagged first_marker is what was verified; whatever the header said is replaced
    LocalSnapshotMeta stored =
        meta.toBuilder().setFirstMarkerFrom(firstMarkerFrom == null ? "" : firstMarkerFrom).build();
    ctx.store().putWorkerMeta(meta.getSnapshotId(), stored);
    Piece piece = new Piece(stored, cut, chunks, recordedBytes);
    phase = Phase.DONE; // the loop answers from here on
    ctx.loop().execute(() -> acknowledged(piece, ctx.lifecycle().acknowledge(piece, this)));
  }

  /** On the loop: answers the upload with what the lifecycle made of its piece. */
  private void acknowledged(Piece piece, AckResult result) {
    switch (result) {
      case SUCCESS -> {
        ctx.metrics().piece(piece);
        // the last piece is answered once the snapshot's commit is done
        var unused =
            ctx.lifecycle()
                .settled(piece.snapshotId())
                .whenComplete(
                    (ignored, error) -> {
                      try {
                        out.onNext(
                            UploadResult.newBuilder().setStoredStateBytes(stateBytes).build());
                        out.onCompleted();
                      } catch (RuntimeException cancelled) {
                        // cancelled meanwhile: the piece is in all the same
                      }
                    });
      }
      case DUPLICATE, NOT_ADMITTED ->
          refuse(
              Status.ALREADY_EXISTS.withDescription(
                  "worker "
                      + meta.getWorkerId()
                      + "'s piece of snapshot "
                      + meta.getSnapshotId()
                      + " came from another upload"));
      case UNKNOWN ->
          refuse(Status.NOT_FOUND.withDescription("no pending snapshot " + meta.getSnapshotId()));
      case DISCARDED ->
          refuse(
              Status.FAILED_PRECONDITION.withDescription(
                  "snapshot " + meta.getSnapshotId() + " ended before the upload finished"));
    }
  }

  /** On the loop: a trailer whose piece was not taken; frees the slot and ends the upload. */
  private void refuse(Status status) {
    ctx.lifecycle().release(meta.getSnapshotId(), meta.getWorkerId(), this);
    try {
      out.onError(status.asRuntimeException());
    } catch (RuntimeException ignored) {
      // cancelled
    }
  }

  private static SortedMap<String, Long> counters(List<ChannelCounter> list, String what) {
    SortedMap<String, Long> m = new TreeMap<>();
    for (ChannelCounter c : list) {
      if (m.put(c.getPeer(), c.getCount()) != null) {
        throw invalid("header lists the " + what + " counter of peer " + c.getPeer() + " twice");
      }
    }
    return m;
  }

  private static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }

  private void fail(Status status) {
    if (phase == Phase.DONE) {
      return;
    }
    phase = Phase.DONE;
    releaseSlot();
    try {
      out.onError(status.asRuntimeException());
    } catch (RuntimeException ignored) {
      // cancelled
    }
  }

  /**
   * Frees the worker's slot (on the loop) if this upload was admitted and did not deliver its
   * piece.
   */
  private void releaseSlot() {
    if (meta != null) {
      long id = meta.getSnapshotId();
      String worker = meta.getWorkerId();
      ctx.loop().execute(() -> ctx.lifecycle().release(id, worker, this));
    }
  }

  @Override
  public void onError(Throwable t) {
    if (phase != Phase.DONE) {
      phase = Phase.DONE; // the worker gave up; a retry starts over
      releaseSlot();
    }
  }

  @Override
  public void onCompleted() {
    fail(Status.INVALID_ARGUMENT.withDescription("upload ended without a trailer"));
  }
}
