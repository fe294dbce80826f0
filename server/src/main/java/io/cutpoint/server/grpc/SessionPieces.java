package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.PieceAnswer;
import io.cutpoint.api.v1.PieceUpload;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.server.CoordinatorContext;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

/**
 * Pieces that workers send whole on their session streams ({@code piece}), each in place of an
 * {@code UploadSnapshot} call: an {@link UploadReceiver} checks and stores their parts by the same
 * rules, and the answer goes back on the stream as {@code piece_answer}. Runs on the stream's
 * transport thread, as an upload call's parts do. A session carries only its own worker's piece,
 * and only while it is that worker's live session; the stream's caller was checked at its join.
 */
final class SessionPieces {

  /** The largest {@code piece} message taken, in bytes; the welcome says so. */
  static final int MAX_PIECE_BYTES = 256 << 10;

  /**
   * The most bytes of one session's pieces that wait for the store at once. An upload call reads on
   * only while few of its parts wait ({@link UploadReceiver#PARTS_IN_FLIGHT}); the session stream
   * cannot stop reading for a piece, so a worker that sends piece after failing piece (each gives
   * up its claim at once) would queue their parts on the store without limit. A worker that waits
   * for each answer, as the SDK does, holds at most two pieces there.
   */
  static final long MAX_STORING_BYTES = 4L * MAX_PIECE_BYTES;

  private final CoordinatorContext ctx;
  private final UploadClaims claims;

  SessionPieces(CoordinatorContext ctx, UploadClaims claims) {
    this.ctx = ctx;
    this.claims = claims;
  }

  /** Checks, stores and answers {@code piece}, sent on {@code session}'s stream. */
  void receive(LiveSession session, PieceUpload piece) {
    long id =
        piece.getPartsCount() > 0 && piece.getParts(0).hasHeader()
            ? piece.getParts(0).getHeader().getMeta().getSnapshotId()
            : 0;
    Answer answer = new Answer(session, id);
    int size = piece.getSerializedSize();
    if (size > MAX_PIECE_BYTES) {
      answer.onError(
          Status.RESOURCE_EXHAUSTED
              .withDescription(
                  "a piece on the session stream has at most "
                      + MAX_PIECE_BYTES
                      + " bytes, this one "
                      + size
                      + "; upload it with UploadSnapshot")
              .asRuntimeException());
      return;
    }
    long storing = session.piecesStoring.get();
    if (storing + size > MAX_STORING_BYTES) {
      answer.onError(
          Status.RESOURCE_EXHAUSTED
              .withDescription(
                  "the coordinator is still storing "
                      + storing
                      + " bytes of this session's earlier pieces; wait for their answers, or"
                      + " upload this one with UploadSnapshot")
              .asRuntimeException());
      return;
    }
    session.piecesStoring.addAndGet(size);
    UploadReceiver receiver =
        new UploadReceiver(ctx, claims, worker -> own(session, worker), answer, null);
    for (UploadPart part : piece.getPartsList()) {
      receiver.onNext(part);
    }
    receiver.onCompleted(); // a piece without its trailer fails here; after it, nothing happens
    // the store writes in order: this runs once every write this piece queued is done
    ctx.storeIo().writePiece(store -> session.piecesStoring.addAndGet(-size));
  }

  private void own(LiveSession session, String worker) {
    if (!worker.equals(session.workerId())) {
      throw Status.PERMISSION_DENIED
          .withDescription(
              "the session of worker "
                  + session.workerId()
                  + " carries only its own piece, not worker "
                  + worker
                  + "'s")
          .asRuntimeException();
    }
    boolean live =
        ctx.sessions()
            .get(worker)
            .filter(s -> s == session && ctx.membership().token(worker) == s.token())
            .isPresent();
    if (!live) {
      throw Status.PERMISSION_DENIED
          .withDescription("this session of worker " + worker + " is no longer its live session")
          .asRuntimeException();
    }
  }

  /** Sends what the receiver answers back on the session stream, as {@code piece_answer}. */
  private static final class Answer implements StreamObserver<UploadResult> {
    private final LiveSession session;
    private final long snapshotId;
    private volatile UploadResult result;

    Answer(LiveSession session, long snapshotId) {
      this.session = session;
      this.snapshotId = snapshotId;
    }

    @Override
    public void onNext(UploadResult value) {
      result = value;
    }

    @Override
    public void onError(Throwable t) {
      Status status = Status.fromThrowable(t);
      PieceAnswer.Builder answer =
          PieceAnswer.newBuilder().setSnapshotId(snapshotId).setCode(status.getCode().value());
      if (status.getDescription() != null) {
        answer.setDescription(status.getDescription());
      }
      send(answer);
    }

    @Override
    public void onCompleted() {
      UploadResult r = result;
      send(
          PieceAnswer.newBuilder()
              .setSnapshotId(snapshotId)
              .setStoredStateBytes(r == null ? 0 : r.getStoredStateBytes()));
    }

    private void send(PieceAnswer.Builder answer) {
      session.send(CoordinatorMessage.newBuilder().setPieceAnswer(answer).build());
    }
  }
}
