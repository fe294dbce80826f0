package io.cutpoint.server.grpc;

import com.google.protobuf.ByteString;
import io.cutpoint.api.Crc32c;
import io.cutpoint.api.Sha256;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
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
import io.cutpoint.server.lifecycle.PendingManifest;
import io.cutpoint.server.lifecycle.Piece;
import io.cutpoint.server.lifecycle.SnapshotLifecycle;
import io.cutpoint.server.membership.WorkerIds;
import io.cutpoint.storage.NoSuchSnapshotException;
import io.cutpoint.storage.NotPendingException;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreParts;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives one worker's piece of a snapshot: header, state chunks, channel recordings, trailer.
 * Each chunk and recording is checked as it arrives and handed to the store executor; only the
 * sequence numbers of the recorded messages stay in memory (for the cut check). The first bad part
 * ends the upload with a status; later parts are ignored.
 *
 * <p>Threads: the parts arrive on a transport thread, one at a time, and are checked there; nothing
 * here waits. The header is checked against the lifecycle's published view (the snapshot is
 * pending, covers the worker, lacks its piece) and claims the piece ({@link UploadClaims}), so that
 * no other upload stores parts of it meanwhile. The parts are written on {@code cutpoint-store}, in
 * order: behind the snapshot's pending manifest (the loop hands it off before any worker hears of
 * the snapshot) and ahead of its commit (decided only after the trailer). At most {@link
 * #PARTS_IN_FLIGHT} parts wait for the store before the upload reads on. The trailer posts the
 * piece to the loop, which decides its admission in that one event and answers the upload; a part
 * write that fails keeps the piece's metadata out of the store, so the store refuses the commit and
 * the snapshot ends ABORTED ({@code STORE_ERROR}).
 */
final class UploadReceiver implements StreamObserver<UploadPart> {

  /** Whose piece an upload may carry: checks the header's worker id, on the receiving thread. */
  @FunctionalInterface
  interface Owner {
    /**
     * @throws StatusRuntimeException PERMISSION_DENIED when the caller may not upload that piece
     */
    void check(String workerId);

    /**
     * An {@code UploadSnapshot} call's: the call carries its worker's live session ({@link
     * OwnSession}).
     */
    static Owner ofCall(CoordinatorContext ctx) {
      return worker -> OwnSession.require(ctx, worker, "upload");
    }
  }

  private static final Logger log = LoggerFactory.getLogger(UploadReceiver.class);

  /** Largest state chunk accepted. */
  static final int MAX_CHUNK_BYTES = 1 << 20;

  /** Parts handed to the store and not yet written, at most, before the upload reads on. */
  static final int PARTS_IN_FLIGHT = 8;

  /**
   * A piece that stored at least this many bytes (state and recordings) is synced as soon as it is
   * in ({@link io.cutpoint.server.lifecycle.StoreExecutor#syncPiecesSoon}); smaller ones are left
   * to the commit's sync, which costs about the same for a few KiB more.
   */
  static final long EARLY_SYNC_BYTES = 64 << 10;

  private static final byte[] NO_PAYLOAD = new byte[0];

  private enum Phase {
    HEADER,
    STATE,
    CHANNELS,
    DONE
  }

  private final CoordinatorContext ctx;
  private final UploadClaims claims;
  private final Owner owner;
  private final StreamObserver<UploadResult> out;

  /** The call's inbound flow control, or null when gRPC requests every message by itself. */
  private final ServerCallStreamObserver<UploadResult> call;

  private Phase phase = Phase.HEADER;
  private LocalSnapshotMeta meta;
  private Instant headerAt; // when the header arrived, for the snapshot's trace
  private final CRC32C stateCrc = new CRC32C();
  private long stateBytes;
  private int chunks;

  /** A content-addressed state: the chunks are the header's content list, sent where missing. */
  private boolean content;

  private int nextContent; // the first position of the content list a chunk may still take
  private long uploadedBytes;
  private final SortedMap<String, List<InTransitMessage>> recorded = new TreeMap<>();
  private String firstMarkerFrom;
  private Set<String> countedSenders; // the peers the header's received counters name; lazily
  private long recordedMessages;
  private long recordedBytes;

  /** This upload holds the piece's claim, and has not told the loop of its piece. */
  private boolean claimed;

  /** What the loop does before a failed upload is answered (an abort), or null. */
  private Runnable beforeAnswer;

  /** Parts handed to the store and not yet written. */
  private final AtomicInteger inFlight = new AtomicInteger();

  /** A part's write failed; touched on {@code cutpoint-store} only. */
  private boolean writeFailed;

  /**
   * @param call the call's flow control with automatic requests disabled (the receiver asks for
   *     each part), or null to leave them to gRPC
   */
  UploadReceiver(
      CoordinatorContext ctx,
      UploadClaims claims,
      Owner owner,
      StreamObserver<UploadResult> out,
      ServerCallStreamObserver<UploadResult> call) {
    this.ctx = ctx;
    this.claims = claims;
    this.owner = owner;
    this.out = out;
    this.call = call;
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
    } catch (IllegalArgumentException e) {
      fail(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
    }
  }

  /** Asks the transport for the next part (not needed when gRPC asks by itself). */
  private void requestNext() {
    if (call != null) {
      call.request(1);
    }
  }

  private void header(LocalSnapshotMeta m) {
    if (phase != Phase.HEADER) {
      throw invalid("header sent twice");
    }
    headerAt = ctx.clock().instant();
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
    StoreParts.contentProblem(m, MAX_CHUNK_BYTES, ChunkFinder.MAX_HASHES)
        .ifPresent(
            p -> {
              throw invalid(p);
            });
    owner.check(m.getWorkerId());
    long id = m.getSnapshotId();
    String worker = m.getWorkerId();
    // the view is published before the start commands go out: a worker that heard of the snapshot
    // finds it here, and its pending manifest is already handed to the store, ahead of any part
    SnapshotLifecycle.View view = ctx.lifecycle().view();
    PendingManifest snap = view.pending().get(id);
    if (snap == null) {
      throw view.ended(id)
          ? Status.FAILED_PRECONDITION
              .withDescription("snapshot " + id + " is no longer pending")
              .asRuntimeException()
          : Status.NOT_FOUND.withDescription("no pending snapshot " + id).asRuntimeException();
    }
    if (snap.epoch() != m.getEpoch()) {
      throw Status.FAILED_PRECONDITION
          .withDescription(
              "the piece was recorded in epoch "
                  + m.getEpoch()
                  + ", snapshot "
                  + id
                  + " belongs to epoch "
                  + snap.epoch())
          .asRuntimeException();
    }
    if (!snap.covers(worker)) {
      throw Status.PERMISSION_DENIED
          .withDescription("snapshot " + id + " does not cover worker " + worker)
          .asRuntimeException();
    }
    if (snap.delivered(worker)) {
      throw alreadyDelivered(m);
    }
    if (!claims.claim(id, worker, this)) {
      throw Status.ALREADY_EXISTS
          .withDescription(
              "another upload of worker " + worker + "'s piece of snapshot " + id + " is under way")
          .asRuntimeException();
    }
    // an upload that held the claim before gives it up only after the view shows its piece taken
    PendingManifest now = ctx.lifecycle().view().pending().get(id);
    if (now != null && now.delivered(worker)) {
      claims.release(id, worker, this);
      throw alreadyDelivered(m);
    }
    meta = m; // from here on this upload holds the piece, until the loop answers or it breaks
    content = m.getContentCount() > 0;
    claimed = true;
    phase = Phase.STATE;
    requestNext();
  }

  private static StatusRuntimeException alreadyDelivered(LocalSnapshotMeta m) {
    return Status.ALREADY_EXISTS
        .withDescription(
            "worker "
                + m.getWorkerId()
                + " already delivered its piece of snapshot "
                + m.getSnapshotId())
        .asRuntimeException();
  }

  /**
   * Hands one part's write to the store executor; reads on at once while fewer than {@link
   * #PARTS_IN_FLIGHT} parts wait there, else once the store has written one.
   */
  private void storePart(String what, Consumer<SnapshotStore> write) {
    int waiting = inFlight.incrementAndGet();
    ctx.storeIo()
        .writePiece(
            store -> {
              write(store, what, write);
              if (inFlight.getAndDecrement() == PARTS_IN_FLIGHT) {
                requestNext(); // the receiving thread stopped reading at this many
              }
            });
    if (waiting < PARTS_IN_FLIGHT) {
      requestNext();
    }
  }

  /** On {@code cutpoint-store}: one write of this upload; after a failed one, none. */
  private void write(SnapshotStore store, String what, Consumer<SnapshotStore> write) {
    if (writeFailed) {
      return;
    }
    try {
      write.accept(store);
    } catch (NotPendingException | NoSuchSnapshotException e) {
      // The snapshot ended (aborted, timed out) while the upload went on: no commit is left to
      // refuse, and a failure kept for it would stay for good. The upload's answer says it ended.
      writeFailed = true;
      log.debug(
          "worker {}'s piece of snapshot {}: {} not stored, the snapshot ended: {}",
          meta.getWorkerId(),
          meta.getSnapshotId(),
          what,
          e.getMessage());
    } catch (RuntimeException e) {
      writeFailed = true; // no metadata follows: the store refuses to commit the snapshot
      ctx.storeIo()
          .pieceWriteFailed(
              meta.getSnapshotId(),
              "could not store "
                  + what
                  + " of worker "
                  + meta.getWorkerId()
                  + ": "
                  + e.getMessage());
      log.warn(
          "could not store {} of worker {}'s piece of snapshot {}: {}",
          what,
          meta.getWorkerId(),
          meta.getSnapshotId(),
          e.toString());
    }
  }

  private void chunk(StateChunk c) {
    if (phase != Phase.STATE) {
      throw invalid(
          phase == Phase.HEADER
              ? "state chunk before the header"
              : "state chunk after channel recordings");
    }
    if (content) {
      contentChunk(c);
      return;
    }
    if (c.getIndex() != chunks) {
      throw invalid("state chunk " + c.getIndex() + " out of order: expected " + chunks);
    }
    byte[] data = c.getData().toByteArray();
    if (data.length == 0) {
      // it adds nothing, and any number of them fit in the declared size
      throw invalid("state chunk " + c.getIndex() + " is empty");
    }
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
    long id = meta.getSnapshotId();
    String worker = meta.getWorkerId();
    int index = chunks;
    storePart(
        "state chunk " + index, store -> store.putCheckedStateChunk(id, worker, index, data, crc));
    stateCrc.update(data);
    stateBytes += data.length;
    chunks++;
  }

  /**
   * A chunk of a content-addressed state: one the store lacked, at a position of the header's list
   * after the previous one, with the listed length, CRC32C and SHA-256 (computed here: a chunk is
   * stored under the hash of its bytes, whatever the worker claims).
   */
  private void contentChunk(StateChunk c) {
    int index = c.getIndex();
    if (index < nextContent || index >= meta.getContentCount()) {
      throw invalid(
          "content chunk "
              + Integer.toUnsignedString(index)
              + " out of order: expected one of "
              + nextContent
              + " to "
              + (meta.getContentCount() - 1));
    }
    ContentChunk listed = meta.getContent(index);
    byte[] data = c.getData().toByteArray();
    int crc = Crc32c.of(data);
    if (data.length != listed.getLength() || crc != listed.getCrc32C()) {
      throw invalid(
          String.format(
              "content chunk %d has %d bytes with CRC32C %08x, the header lists %d bytes with %08x",
              index, data.length, crc, listed.getLength(), listed.getCrc32C()));
    }
    ByteString hash = ByteString.copyFrom(Sha256.of(data));
    if (!hash.equals(listed.getSha256())) {
      throw invalid("content chunk " + index + " does not have the SHA-256 the header lists");
    }
    long id = meta.getSnapshotId();
    String worker = meta.getWorkerId();
    storePart(
        "content chunk " + index,
        store -> store.putContentChunk(id, worker, index, hash, data, crc));
    nextContent = index + 1;
    uploadedBytes += data.length;
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
    if (!countsReceivedFrom(from)) {
      // each sender takes memory and store batches until the cut is verified: only the incoming
      // channels the header counts (at most maxChannelsPerWorker of them) may have recordings
      throw invalid(
          "channel recording from "
              + from
              + ", whose messages the header does not count: not an incoming channel of "
              + meta.getWorkerId());
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
      // the snapshot is aborted before the upload is answered
      beforeAnswer = () -> ctx.lifecycle().abort(id, FailureReason.LOCAL_FAILURE, message);
      throw Status.RESOURCE_EXHAUSTED
          .withDescription("recorded messages exceed the limit of " + limit + " bytes per snapshot")
          .asRuntimeException();
    }
    recordedMessages += toStore.size();
    if (!toStore.isEmpty()) {
      long id = meta.getSnapshotId();
      ChannelId channel = ChannelId.of(from, meta.getWorkerId());
      storePart(
          "the recording of channel " + channel,
          store -> store.putChannelRecording(id, channel, toStore));
    } else {
      requestNext();
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
    // a content list was checked against the whole state's size and CRC32C with the header
    if (!content && stateBytes != meta.getStateBytes()) {
      throw invalid(
          "state has " + stateBytes + " bytes, the header declares " + meta.getStateBytes());
    }
    int whole = content ? meta.getStateCrc32C() : Crc32c.value(stateCrc);
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
    // the last write of the piece, and only when every part is in: the store commits no piece
    // without it; a piece of some size is then synced while the other pieces arrive, so that the
    // commit does not sync it too
    boolean syncEarly = (content ? uploadedBytes : stateBytes) + recordedBytes >= EARLY_SYNC_BYTES;
    ctx.storeIo()
        .writePiece(
            store -> {
              write(store, "the counters", s -> s.putWorkerMeta(stored.getSnapshotId(), stored));
              if (syncEarly) {
                ctx.storeIo().syncPiecesSoon();
              }
            });
    Piece piece =
        new Piece(
            StoreParts.manifestMeta(stored),
            cut,
            content ? meta.getContentCount() : chunks,
            recordedBytes,
            headerAt);
    long uploaded = content ? uploadedBytes : stateBytes;
    phase = Phase.DONE; // the loop answers from here on, and gives up the claim
    claimed = false;
    ctx.loop().execute(() -> acknowledged(piece, uploaded, ctx.lifecycle().acknowledge(piece)));
  }

  /**
   * On the loop: answers the upload with what the lifecycle made of its piece, and gives up the
   * claim (the view shows the piece by now, if it was taken).
   */
  private void acknowledged(Piece piece, long uploaded, AckResult result) {
    claims.release(piece.snapshotId(), piece.workerId(), this);
    switch (result) {
      case SUCCESS -> {
        ctx.metrics().piece(piece, uploaded);
        // the last piece is answered once the snapshot's commit is done
        var unused =
            ctx.lifecycle()
                .settled(piece.snapshotId())
                .whenComplete(
                    (ignored, error) -> {
                      try {
                        out.onNext(
                            UploadResult.newBuilder()
                                .setStoredStateBytes(piece.meta().getStateBytes())
                                .build());
                        out.onCompleted();
                      } catch (RuntimeException cancelled) {
                        // cancelled meanwhile: the piece is in all the same
                      }
                    });
      }
      case DUPLICATE ->
          answer(
              Status.ALREADY_EXISTS.withDescription(
                  "worker "
                      + meta.getWorkerId()
                      + "'s piece of snapshot "
                      + meta.getSnapshotId()
                      + " came from another upload"));
      case UNKNOWN ->
          answer(Status.NOT_FOUND.withDescription("no pending snapshot " + meta.getSnapshotId()));
      case DISCARDED ->
          answer(
              Status.FAILED_PRECONDITION.withDescription(
                  "snapshot " + meta.getSnapshotId() + " ended before the upload finished"));
    }
  }

  private boolean countsReceivedFrom(String peer) {
    if (countedSenders == null) {
      countedSenders = new HashSet<>();
      meta.getReceivedList().forEach(c -> countedSenders.add(c.getPeer()));
    }
    return countedSenders.contains(peer);
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
    giveUp();
    Runnable first = beforeAnswer;
    if (first == null) {
      answer(status);
    } else {
      ctx.loop()
          .execute(
              () -> {
                first.run();
                answer(status);
              });
    }
  }

  private void answer(Status status) {
    try {
      out.onError(status.asRuntimeException());
    } catch (RuntimeException ignored) {
      // cancelled
    }
  }

  /**
   * An upload that claimed its piece ended without telling the loop of it: what it stored is
   * discarded (behind its parts), then the claim is free for a retry.
   */
  private void giveUp() {
    if (!claimed) {
      return;
    }
    claimed = false;
    long id = meta.getSnapshotId();
    String worker = meta.getWorkerId();
    ctx.storeIo()
        .writePiece(
            store -> {
              try {
                store.discardPieces(id, worker);
              } catch (RuntimeException e) {
                log.debug("nothing to discard of {}'s piece of snapshot {}: {}", worker, id, e);
              }
            });
    claims.release(id, worker, this);
  }

  @Override
  public void onError(Throwable t) {
    if (phase != Phase.DONE) {
      phase = Phase.DONE; // the worker gave up; a retry starts over
      giveUp();
    }
  }

  @Override
  public void onCompleted() {
    fail(Status.INVALID_ARGUMENT.withDescription("upload ended without a trailer"));
  }
}
