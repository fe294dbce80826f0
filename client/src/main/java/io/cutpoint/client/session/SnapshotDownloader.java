package io.cutpoint.client.session;

import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.DownloadRequest;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

/**
 * Downloads and checks one worker's piece of a snapshot with {@code DownloadSnapshot}, on the
 * calling thread. The call runs in its own cancellable context: it is cancelled as soon as a check
 * fails, and {@link #cancel()} (from {@code close()}) ends a download in progress.
 */
final class SnapshotDownloader {

  private final CoordinatorGrpc.CoordinatorBlockingStub stub;
  private final Duration timeout;
  private volatile Context.CancellableContext current;

  SnapshotDownloader(Channel channel, Duration timeout) {
    this.stub = CoordinatorGrpc.newBlockingStub(channel);
    this.timeout = timeout;
  }

  /**
   * Downloads {@code workerId}'s piece of {@code snapshotId}.
   *
   * @throws CorruptPieceException a part failed a check
   * @throws StatusRuntimeException the RPC failed (e.g. DATA_LOSS, NOT_FOUND, UNAVAILABLE)
   */
  PieceAssembler.Restorable download(long snapshotId, String workerId)
      throws CorruptPieceException {
    DownloadRequest request =
        DownloadRequest.newBuilder().setSnapshotId(snapshotId).setWorkerId(workerId).build();
    Context.CancellableContext ctx = Context.current().withCancellation();
    current = ctx;
    Context previous = ctx.attach();
    try {
      PieceAssembler assembler = new PieceAssembler(snapshotId, workerId);
      Iterator<DownloadPart> parts =
          stub.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS).downloadSnapshot(request);
      while (parts.hasNext()) {
        assembler.accept(parts.next());
      }
      return assembler.finish();
    } finally {
      ctx.detach(previous);
      ctx.cancel(null); // ends the call if we stopped reading early
      current = null;
    }
  }

  /** Cancels the download in progress, if any. */
  void cancel() {
    Context.CancellableContext ctx = current;
    if (ctx != null) {
      ctx.cancel(null);
    }
  }
}
