package io.cutpoint.client.session;

import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.v1.ChunkAnswer;
import io.cutpoint.api.v1.ChunkQuery;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.PieceAnswer;
import io.cutpoint.api.v1.PieceUpload;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.client.WorkerLoop;
import io.cutpoint.client.chunks.ArrayChunks;
import io.cutpoint.client.chunks.ChunkRef;
import io.cutpoint.client.chunks.ContentChunker;
import io.cutpoint.client.chunks.StateContent;
import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.util.Durations;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * Uploads local snapshots with {@code UploadSnapshot}, from the worker's event loop and without
 * blocking it: parts are produced and sent on the loop only while the call {@code isReady()}, and
 * gRPC's {@code onReady} (on a transport thread) hands the next round back to the loop. So at most
 * one part, plus what the transport buffers below its ready threshold, is in flight, whatever the
 * state size; the loop runs the worker between two rounds.
 *
 * <p>A piece whose parts fit in what the session's coordinator takes on the session stream ({@link
 * Pieces#maxPieceBytes()}) goes there whole instead, as one {@code piece} message: no call to open,
 * no metadata, no second stream. Its answer comes back on the stream ({@link Upload#answered}); if
 * the stream ends first, the upload fails with UNAVAILABLE, as a call cut off would.
 */
final class SnapshotUploader {

  /** The session stream, as a way up for whole small pieces. Used on the loop. */
  interface Pieces {
    /** Takes no piece: every piece goes up with its own call. */
    Pieces NONE =
        new Pieces() {
          @Override
          public int maxPieceBytes() {
            return 0;
          }

          @Override
          public boolean send(PieceUpload piece) {
            return false;
          }

          @Override
          public Future<?> deadline(Duration timeout, Runnable expired) {
            return CompletableFuture.completedFuture(null); // nothing is sent to wait for
          }
        };

    /** The largest {@code PieceUpload} the current session takes, in bytes; 0: none. */
    int maxPieceBytes();

    /** Sends {@code piece} on the current session; false if it could not. */
    boolean send(PieceUpload piece);

    /**
     * Runs {@code expired} once {@code timeout} has passed, unless the returned future is cancelled
     * first: the answer to a piece sent on the session is awaited that long, as an upload call's.
     */
    Future<?> deadline(Duration timeout, Runnable expired);
  }

  private final CoordinatorGrpc.CoordinatorStub stub;
  private final WorkerLoop loop;
  private final int chunkBytes;
  private final ContentChunker chunker; // null: every state byte goes up, in numbered chunks
  private final StateCutter cutter; // large and keyed states, off the loop, from their capture
  private final ArrayChunks smallStates; // small states, on the loop
  private final LocalCopy localCopy;
  private final Duration timeout;
  private final Pieces pieces;

  /**
   * A state of at most this many bytes is cut on the loop and sent whole, without asking which of
   * its chunks the coordinator holds: the round trip would cost more than the bytes.
   */
  static final int SMALL_STATE = 64 << 10;

  private final AtomicLong partsSent = new AtomicLong();

  /** The chunks of the last content-addressed state that went up; loop only. */
  private List<ChunkRef> lastUploaded = List.of();

  /**
   * States cut ahead of their uploads, at most this many: a state captured while as many wait (a
   * backlog of uploads) is cut when its own upload starts. Each is forgotten when its upload takes
   * it, or when its snapshot fails, is dropped or is given up.
   */
  static final int MAX_AHEAD = 4;

  /** Questions asked at a capture, by snapshot, until its upload takes its own; loop only. */
  private final Map<Long, EarlyQuestion> early = new HashMap<>();

  SnapshotUploader(
      Channel channel, WorkerLoop loop, int chunkBytes, boolean contentChunks, Duration timeout) {
    this(channel, loop, chunkBytes, contentChunks, timeout, null, Runnable::run, Pieces.NONE);
  }

  /**
   * @param localCopy where an uploaded content-addressed state is kept (local recovery), or null
   * @param chunking where states are cut and hashed, off the loop
   * @param pieces the session stream, for pieces small enough to go whole on it
   */
  SnapshotUploader(
      Channel channel,
      WorkerLoop loop,
      int chunkBytes,
      boolean contentChunks,
      Duration timeout,
      LocalCopy localCopy,
      java.util.concurrent.Executor chunking,
      Pieces pieces) {
    this.localCopy = localCopy;
    this.pieces = pieces;
    // Callbacks run where the transport delivers them; each hands its work to the loop once.
    this.stub = CoordinatorGrpc.newStub(channel).withExecutor(MoreExecutors.directExecutor());
    this.loop = loop;
    this.chunkBytes = chunkBytes;
    this.chunker = contentChunks ? ContentChunker.defaults() : null;
    this.cutter = new StateCutter(chunking, loop::execute);
    this.smallStates = new ArrayChunks(ContentChunker.defaults());
    this.timeout = timeout;
  }

  /** Parts handed to gRPC by this uploader so far, over all uploads (for tests and metrics). */
  long partsSent() {
    return partsSent.get();
  }

  /**
   * Starts uploading {@code snapshot} recorded in {@code epoch}; on the loop. {@code done} gets, on
   * the loop and once, the coordinator's answer or the status the call failed with (the other
   * argument null); never before this method returns, so the caller holds the upload first.
   */
  Upload start(CompletedLocalSnapshot snapshot, long epoch, BiConsumer<UploadResult, Status> done) {
    Upload upload = new Upload(done);
    upload.snapshotId = snapshot.cut().snapshotId();
    CapturedState captured = snapshot.state();
    if (chunker == null || (!captured.isKeyed() && captured.state().length == 0)) {
      upload.send(new UploadParts(snapshot, epoch, chunkBytes));
      return upload;
    }
    // Cut and hash the state, ask which chunks the coordinator lacks, then send those.
    if (!captured.isKeyed() && captured.state().length <= SMALL_STATE) {
      // cut here, and send it whole: cheaper than the hand-offs and the question
      StateContent content = smallStates.content(captured.state());
      upload.sendChunks(
          snapshot,
          epoch,
          content,
          java.util.stream.IntStream.range(0, content.recipe().size()).toArray(),
          ChunkingTimes.NONE);
      return upload;
    }
    // While the state is cut, ask about the chunks of the last state that went up: most are the
    // new state's too, and the answer then arrives while the cutting goes on (HeldChunks).
    EarlyQuestion asked = early.remove(upload.snapshotId);
    Meeting meeting =
        asked != null
            ? new Meeting(upload, snapshot, asked)
            : new Meeting(upload, snapshot, lastUploaded);
    boolean cutting =
        cutter.cut(
            upload.snapshotId,
            captured,
            c ->
                meeting.cut(
                    new CutState(upload, snapshot, epoch, c.content(), c.began(), c.chunked())),
            e ->
                upload.finish(
                    null,
                    Status.INTERNAL
                        .withDescription("cutting the state failed: " + e)
                        .withCause(e)));
    if (!cutting) {
      upload.finishLater(Status.CANCELLED.withDescription("the worker's threads are stopping"));
      return upload;
    }
    meeting.askEarly();
    return upload;
  }

  /**
   * On the loop: {@code state} was captured for {@code snapshotId}; a state that goes up as content
   * chunks off the loop begins to be cut now, while the snapshot's markers are out, unless {@link
   * #MAX_AHEAD} wait already. {@code ask}: the question about the last upload's chunks may go now
   * (the session is joined, so the call carries the secret the coordinator knows).
   */
  void captured(String workerId, long snapshotId, CapturedState state, boolean ask) {
    if (chunker == null || (!state.isKeyed() && state.state().length <= SMALL_STATE)) {
      return;
    }
    if (cutter.ahead().size() >= MAX_AHEAD) {
      return; // the uploads before it take their cuts first
    }
    if (cutter.captured(snapshotId, state) && ask && !lastUploaded.isEmpty()) {
      EarlyQuestion q = new EarlyQuestion(lastUploaded);
      early.put(snapshotId, q);
      ask(q.context, snapshotId, workerId, q.asked, () -> false, q::answered);
    }
  }

  /**
   * On the loop: {@code snapshotId} will not be uploaded; its cutting and its question are
   * forgotten.
   */
  void forget(long snapshotId) {
    cutter.forget(snapshotId);
    EarlyQuestion q = early.remove(snapshotId);
    if (q != null) {
      q.context.cancel(null);
    }
  }

  /** On the loop: no snapshot cut or asked about so far will be uploaded (the session closed). */
  void forgetAll() {
    java.util.Set<Long> ids = new java.util.TreeSet<>(cutter.ahead());
    ids.addAll(early.keySet());
    ids.forEach(this::forget);
  }

  /**
   * A question about the chunks of the last uploaded state, asked when the next state was captured,
   * and its answer once it came (or the status it failed with). Loop only.
   */
  private static final class EarlyQuestion {
    final List<ChunkRef> asked;
    final Context.CancellableContext context = Context.current().withCancellation();
    private boolean answered;
    private ChunkAnswer answer;
    private Status status;
    private BiConsumer<ChunkAnswer, Status> then;

    EarlyQuestion(List<ChunkRef> asked) {
      this.asked = asked;
    }

    void answered(ChunkAnswer a, Status s) {
      answered = true;
      answer = a;
      status = s;
      context.cancel(null); // the call has ended
      if (then != null) {
        then.accept(a, s);
      }
    }

    /** Hands the answer to {@code then} once it is in (at once if it is). */
    void then(BiConsumer<ChunkAnswer, Status> t) {
      then = t;
      if (answered) {
        t.accept(answer, status);
      }
    }
  }

  /** States cut off the loop so far (for tests); any thread. */
  long cutsMade() {
    return cutter.cutsMade();
  }

  /** On the loop: the snapshots whose states are cut ahead of their uploads (for tests). */
  List<Long> cutsAhead() {
    return cutter.ahead();
  }

  /**
   * On the loop: where a state's cutting and the early question about the last upload's chunks
   * meet. Whichever ends last decides what to send: the chunks the answer does not cover, or, when
   * those are many or nothing was asked, a question about the whole new state first.
   */
  private final class Meeting {
    private final Upload upload;
    private final CompletedLocalSnapshot snapshot;
    private final List<ChunkRef> asked;
    private boolean waiting; // the early question is out
    private HeldChunks held = HeldChunks.NONE;
    private CutState cut;

    private final EarlyQuestion askedAtCapture; // or null: ask now

    Meeting(Upload upload, CompletedLocalSnapshot snapshot, List<ChunkRef> asked) {
      this.upload = upload;
      this.snapshot = snapshot;
      this.asked = asked;
      this.askedAtCapture = null;
    }

    /** A meeting that takes the answer to the question asked when the state was captured. */
    Meeting(Upload upload, CompletedLocalSnapshot snapshot, EarlyQuestion question) {
      this.upload = upload;
      this.snapshot = snapshot;
      this.asked = question.asked;
      this.askedAtCapture = question;
    }

    void askEarly() {
      if (asked.isEmpty()) {
        return;
      }
      waiting = true;
      BiConsumer<ChunkAnswer, Status> answered =
          (answer, status) -> {
            waiting = false;
            HeldChunks h = status == null ? HeldChunks.of(asked, answer) : null;
            held = h == null ? HeldChunks.NONE : h; // a failed question: the later one tells
            proceed();
          };
      if (askedAtCapture != null) {
        askedAtCapture.then(
            (answer, status) -> {
              if (!upload.finished) {
                answered.accept(answer, status);
              }
            });
      } else {
        ask(upload, snapshot, asked, answered);
      }
    }

    void cut(CutState c) {
      cut = c;
      proceed();
    }

    private void proceed() {
      if (cut == null || waiting || upload.finished) {
        return;
      }
      int[] send = asked.isEmpty() ? null : held.toSend(cut.content().recipe());
      if (send == null) {
        findChunks(cut);
        return;
      }
      ChunkingTimes times = new ChunkingTimes(cut.began(), cut.chunked(), System.nanoTime());
      upload.sendChunks(snapshot, cut.epoch(), cut.content(), send, times);
    }
  }

  /**
   * A state cut into chunks for {@code upload}: {@code began} and {@code chunked} are when the
   * chunking thread began and ended cutting it ({@link System#nanoTime()}).
   */
  private record CutState(
      Upload upload,
      CompletedLocalSnapshot snapshot,
      long epoch,
      StateContent content,
      long began,
      long chunked) {}

  /**
   * On the loop: asks which chunks of the cut state the coordinator lacks, then sends those. A
   * coordinator from before content addressing (UNIMPLEMENTED) gets every byte, in numbered chunks.
   */
  private void findChunks(CutState cut) {
    List<ChunkRef> recipe = cut.content().recipe();
    ask(
        cut.upload(),
        cut.snapshot(),
        recipe,
        (answer, status) -> {
          if (status != null && status.getCode() == Status.Code.UNIMPLEMENTED) {
            cut.upload().send(new UploadParts(cut.snapshot(), cut.epoch(), chunkBytes));
            return;
          }
          if (status != null) {
            cut.upload().finish(null, status);
            return;
          }
          int[] send = HeldChunks.missing(answer, recipe.size());
          if (send == null) {
            cut.upload()
                .finish(
                    null,
                    Status.INTERNAL.withDescription(
                        "the coordinator's list of missing chunks is not a list of ascending"
                            + " positions"));
            return;
          }
          ChunkingTimes times = new ChunkingTimes(cut.began(), cut.chunked(), System.nanoTime());
          cut.upload().sendChunks(cut.snapshot(), cut.epoch(), cut.content(), send, times);
        });
  }

  /**
   * On the loop: asks the coordinator which of {@code chunks} it lacks for {@code snapshot}; {@code
   * then} gets the answer or the status the call failed with, on the loop, unless the upload ended
   * meanwhile.
   */
  private void ask(
      Upload upload,
      CompletedLocalSnapshot snapshot,
      List<ChunkRef> chunks,
      BiConsumer<ChunkAnswer, Status> then) {
    if (upload.finished) {
      return; // cancelled while the state was cut
    }
    ask(
        upload.context,
        snapshot.cut().snapshotId(),
        snapshot.cut().workerId(),
        chunks,
        () -> upload.finished,
        then);
  }

  /**
   * On the loop: asks the coordinator which of {@code chunks} it lacks for {@code snapshotId}, in
   * {@code context}; {@code then} gets the answer or the status the call failed with, on the loop,
   * unless {@code over} says by then that nobody waits for it.
   */
  private void ask(
      Context.CancellableContext context,
      long snapshotId,
      String workerId,
      List<ChunkRef> chunks,
      BooleanSupplier over,
      BiConsumer<ChunkAnswer, Status> then) {
    ChunkQuery.Builder query =
        ChunkQuery.newBuilder().setSnapshotId(snapshotId).setWorkerId(workerId);
    for (ChunkRef c : chunks) {
      query.addSha256(UnsafeByteOperations.unsafeWrap(c.sha256()));
    }
    StreamObserver<ChunkAnswer> reply =
        new StreamObserver<>() {
          private volatile ChunkAnswer answer;

          @Override
          public void onNext(ChunkAnswer value) {
            answer = value;
          }

          @Override
          public void onError(Throwable t) {
            Status status = Status.fromThrowable(t);
            loop.execute(() -> answered(null, status));
          }

          @Override
          public void onCompleted() {
            ChunkAnswer a = answer;
            loop.execute(() -> answered(a, null));
          }

          private void answered(ChunkAnswer a, Status status) {
            if (!over.getAsBoolean()) {
              then.accept(a, status);
            }
          }
        };
    context.run(
        () ->
            stub.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .findChunks(query.build(), reply));
  }

  /**
   * One upload: an UploadSnapshot call, or a whole piece on the session stream. Its request side is
   * used on the loop only.
   */
  final class Upload implements ClientResponseObserver<UploadPart, UploadResult> {
    private Iterator<UploadPart> parts; // loop only; null until the chunks to send are known
    private final BiConsumer<UploadResult, Status> done;
    private final Context.CancellableContext context = Context.current().withCancellation();
    private ClientCallStreamObserver<UploadPart> requests;
    private volatile UploadResult answer;
    private volatile boolean waitingForReady;
    // loop only:
    private boolean halfClosed;
    private boolean finished;
    private Status failure;
    private volatile boolean onSession; // sent whole on the session stream, answered there
    private Future<?> answerDeadline; // of a piece on the session stream; loop only

    private long snapshotId;
    private StateContent content; // of a content-addressed upload, kept locally once it succeeded

    private Upload(BiConsumer<UploadResult, Status> done) {
      this.done = done;
    }

    /**
     * On the loop: sends the chunks at positions {@code send} of a content-addressed state, and
     * keeps the state locally once the upload succeeded (local recovery).
     */
    private void sendChunks(
        CompletedLocalSnapshot snapshot,
        long epoch,
        StateContent state,
        int[] send,
        ChunkingTimes times) {
      content = state;
      send(new UploadParts(snapshot, epoch, chunkBytes, System::nanoTime, state, send, times));
    }

    /**
     * On the loop: sends these parts whole on the session stream if they fit, else starts the
     * UploadSnapshot call with them; nothing if the upload ended meanwhile.
     */
    private void send(Iterator<UploadPart> p) {
      if (finished) {
        return;
      }
      int limit = pieces.maxPieceBytes();
      if (limit > 0) {
        PieceUpload.Builder piece = PieceUpload.newBuilder();
        long size = 0;
        while (p.hasNext() && size <= limit) {
          UploadPart part = p.next();
          piece.addParts(part);
          size += com.google.protobuf.CodedOutputStream.computeMessageSize(1, part);
        }
        if (size <= limit) {
          sendOnSession(piece.build());
          return;
        }
        p = com.google.common.collect.Iterators.concat(piece.getPartsList().iterator(), p);
      }
      parts = p;
      context.run(
          () ->
              stub.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS).uploadSnapshot(this));
      pump();
    }

    private void sendOnSession(PieceUpload piece) {
      onSession = true;
      if (pieces.send(piece)) {
        partsSent.addAndGet(piece.getPartsCount());
        answerDeadline =
            pieces.deadline(
                timeout,
                () ->
                    finishLater(
                        Status.DEADLINE_EXCEEDED.withDescription(
                            "the coordinator did not answer the piece within "
                                + Durations.format(timeout))));
      } else {
        finishLater(Status.UNAVAILABLE.withDescription("the session ended before the piece went"));
      }
    }

    /**
     * Fails the upload on a later turn of the loop: this may run inside {@link #start}, whose
     * caller must hold the upload before {@code done} hears of its end.
     */
    private void finishLater(Status status) {
      try {
        loop.execute(() -> finish(null, status));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        finish(null, status); // the loop is gone: nobody starts another upload
      }
    }

    /**
     * On the loop: the coordinator's answer to a piece sent on the session stream; false if it is
     * not this upload's.
     */
    boolean answered(PieceAnswer answer) {
      if (!onSession || finished || answer.getSnapshotId() != snapshotId) {
        return false;
      }
      if (answer.getCode() == Status.Code.OK.value()) {
        finish(
            UploadResult.newBuilder().setStoredStateBytes(answer.getStoredStateBytes()).build(),
            null);
      } else {
        finish(
            null, Status.fromCodeValue(answer.getCode()).withDescription(answer.getDescription()));
      }
      return true;
    }

    /** On the loop: the session stream ended; a piece sent on it will not be answered. */
    void sessionEnded() {
      if (onSession) {
        finish(
            null,
            Status.UNAVAILABLE.withDescription(
                "the session ended before the coordinator answered the piece"));
      }
    }

    /** Ends the upload, from any thread; {@code done} then gets CANCELLED. */
    void cancel() {
      context.cancel(null);
      if (onSession) {
        try {
          loop.execute(() -> finish(null, Status.CANCELLED.withDescription("upload cancelled")));
        } catch (java.util.concurrent.RejectedExecutionException e) {
          // the loop is gone, and the upload with it
        }
      }
    }

    /** True while parts are left and the call is not ready for them (for tests). */
    boolean waitingForReady() {
      return waitingForReady;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<UploadPart> r) {
      requests = r;
      r.setOnReadyHandler(() -> loop.execute(this::pump));
    }

    /** On the loop: sends what the call is ready for; half-closes after the last part. */
    private void pump() {
      if (finished || halfClosed) {
        return;
      }
      try {
        while (parts.hasNext() && requests.isReady()) {
          requests.onNext(parts.next());
          partsSent.incrementAndGet();
        }
        if (parts.hasNext()) {
          waitingForReady = true;
          return;
        }
        waitingForReady = false;
        halfClosed = true;
        requests.onCompleted();
      } catch (RuntimeException e) {
        // The call ends with CANCELLED; onError reports this failure instead.
        failure = Status.INTERNAL.withDescription("upload failed: " + e).withCause(e);
        requests.cancel("upload failed", e);
      }
    }

    void finish(UploadResult result, Status status) {
      if (finished) {
        return;
      }
      if (answerDeadline != null) {
        answerDeadline.cancel(false);
      }
      if (failure != null) {
        result = null;
        status = failure;
      }
      finished = true;
      waitingForReady = false;
      context.cancel(null); // frees the context's listeners; the call has ended or is ending
      if (result != null && content != null) {
        lastUploaded = content.recipe();
        if (localCopy != null) {
          localCopy.keep(snapshotId, content);
        }
      }
      done.accept(result, status);
    }

    @Override
    public void onNext(UploadResult value) {
      answer = value;
    }

    @Override
    public void onError(Throwable t) {
      Status status = Status.fromThrowable(t);
      loop.execute(() -> finish(null, status));
    }

    @Override
    public void onCompleted() {
      UploadResult result = answer;
      loop.execute(
          () -> {
            if (result == null) {
              finish(
                  null,
                  Status.INTERNAL.withDescription(
                      "the coordinator ended the upload without a result"));
            } else {
              finish(result, null);
            }
          });
    }
  }
}
