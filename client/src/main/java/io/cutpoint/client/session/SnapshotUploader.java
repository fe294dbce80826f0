package io.cutpoint.client.session;

import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Uploads one local snapshot with {@code UploadSnapshot}, on the calling thread, under gRPC flow
 * control: a part is produced and sent only when the call {@code isReady()}, so at most one part
 * (plus what the transport buffers below its ready threshold) is in flight, whatever the state
 * size. Blocks until the coordinator answers.
 */
final class SnapshotUploader {

  private final CoordinatorGrpc.CoordinatorStub stub;
  private final int chunkBytes;
  private final Duration timeout;
  private final AtomicLong partsSent = new AtomicLong();

  SnapshotUploader(Channel channel, int chunkBytes, Duration timeout) {
    this.stub = CoordinatorGrpc.newStub(channel);
    this.chunkBytes = chunkBytes;
    this.timeout = timeout;
  }

  /** Parts handed to gRPC by this uploader so far, over all uploads (for tests and metrics). */
  long partsSent() {
    return partsSent.get();
  }

  /**
   * Uploads {@code snapshot} recorded in {@code epoch}.
   *
   * @return the coordinator's answer
   * @throws StatusException the RPC failed (the status says why)
   * @throws InterruptedException the thread was interrupted; the call is cancelled
   */
  UploadResult upload(CompletedLocalSnapshot snapshot, long epoch)
      throws StatusException, InterruptedException {
    UploadParts parts = new UploadParts(snapshot, epoch, chunkBytes);
    Call call = new Call();
    stub.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS).uploadSnapshot(call);
    try {
      while (parts.hasNext()) {
        if (!call.awaitReady()) {
          break; // the call ended early; its status is in the result
        }
        call.requests.onNext(parts.next());
        partsSent.incrementAndGet();
      }
      if (!call.result.isDone()) {
        call.requests.onCompleted();
      }
      return call.result.get();
    } catch (InterruptedException e) {
      call.requests.cancel("upload interrupted", e);
      throw e;
    } catch (ExecutionException e) {
      throw Status.fromThrowable(e.getCause()).asException();
    } catch (RuntimeException e) {
      call.requests.cancel("upload failed", e);
      throw Status.INTERNAL.withDescription("upload failed: " + e).withCause(e).asException();
    }
  }

  /** One UploadSnapshot call: readiness signalled from gRPC's threads to the uploading thread. */
  private static final class Call implements ClientResponseObserver<UploadPart, UploadResult> {
    private final Object lock = new Object();
    private final CompletableFuture<UploadResult> result = new CompletableFuture<>();
    private volatile ClientCallStreamObserver<UploadPart> requests;
    private UploadResult answer;

    @Override
    public void beforeStart(ClientCallStreamObserver<UploadPart> r) {
      requests = r;
      r.setOnReadyHandler(this::signal);
    }

    /** Waits until the call can take a part; false when the call already ended. */
    boolean awaitReady() throws InterruptedException {
      synchronized (lock) {
        while (!requests.isReady() && !result.isDone()) {
          lock.wait(1000); // woken by onReady; the timeout only guards against a lost signal
        }
      }
      return !result.isDone();
    }

    private void signal() {
      synchronized (lock) {
        lock.notifyAll();
      }
    }

    @Override
    public void onNext(UploadResult value) {
      answer = value;
    }

    @Override
    public void onError(Throwable t) {
      result.completeExceptionally(t);
      signal();
    }

    @Override
    public void onCompleted() {
      if (answer == null) {
        result.completeExceptionally(
            Status.INTERNAL
                .withDescription("the coordinator ended the upload without a result")
                .asException());
      } else {
        result.complete(answer);
      }
      signal();
    }
  }
}
