package io.cutpoint.client.session;

import com.google.common.util.concurrent.MoreExecutors;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.client.WorkerLoop;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * Uploads local snapshots with {@code UploadSnapshot}, from the worker's event loop and without
 * blocking it: parts are produced and sent on the loop only while the call {@code isReady()}, and
 * gRPC's {@code onReady} (on a transport thread) hands the next round back to the loop. So at most
 * one part, plus what the transport buffers below its ready threshold, is in flight, whatever the
 * state size; the loop runs the worker between two rounds.
 */
final class SnapshotUploader {

  private final CoordinatorGrpc.CoordinatorStub stub;
  private final WorkerLoop loop;
  private final int chunkBytes;
  private final Duration timeout;
  private final AtomicLong partsSent = new AtomicLong();

  SnapshotUploader(Channel channel, WorkerLoop loop, int chunkBytes, Duration timeout) {
    // Callbacks run where the transport delivers them; each hands its work to the loop once.
    this.stub = CoordinatorGrpc.newStub(channel).withExecutor(MoreExecutors.directExecutor());
    this.loop = loop;
    this.chunkBytes = chunkBytes;
    this.timeout = timeout;
  }

  /** Parts handed to gRPC by this uploader so far, over all uploads (for tests and metrics). */
  long partsSent() {
    return partsSent.get();
  }

  /**
   * Starts uploading {@code snapshot} recorded in {@code epoch}; on the loop. {@code done} gets, on
   * the loop and once, the coordinator's answer or the status the call failed with (the other
   * argument null).
   */
  Upload start(CompletedLocalSnapshot snapshot, long epoch, BiConsumer<UploadResult, Status> done) {
    Upload upload = new Upload(new UploadParts(snapshot, epoch, chunkBytes), done);
    upload.context.run(
        () ->
            stub.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS).uploadSnapshot(upload));
    upload.pump();
    return upload;
  }

  /** One UploadSnapshot call. Its request side is used on the loop only. */
  final class Upload implements ClientResponseObserver<UploadPart, UploadResult> {
    private final UploadParts parts;
    private final BiConsumer<UploadResult, Status> done;
    private final Context.CancellableContext context = Context.current().withCancellation();
    private ClientCallStreamObserver<UploadPart> requests;
    private volatile UploadResult answer;
    private volatile boolean waitingForReady;
    // loop only:
    private boolean halfClosed;
    private boolean finished;
    private Status failure;

    private Upload(UploadParts parts, BiConsumer<UploadResult, Status> done) {
      this.parts = parts;
      this.done = done;
    }

    /** Ends the call, from any thread; {@code done} then gets CANCELLED. */
    void cancel() {
      context.cancel(null);
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

    private void finish(UploadResult result, Status status) {
      if (finished) {
        return;
      }
      if (failure != null) {
        result = null;
        status = failure;
      }
      finished = true;
      waitingForReady = false;
      context.cancel(null); // frees the context's listeners; the call has ended or is ending
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
