package io.cutpoint.client.session;

import com.google.common.util.concurrent.MoreExecutors;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.client.WorkerLoop;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Downloads and checks one worker's piece of a snapshot with {@code DownloadSnapshot}, from the
 * worker's event loop and without blocking it: each part is handed from the transport to the loop,
 * checked there, and only then is one more asked for, so at most {@link #PARTS_AHEAD} parts are in
 * flight besides the piece being assembled. The call runs in its own cancellable context: it is
 * cancelled as soon as a check fails, and {@link #cancel()} (from {@code close()}, any thread) ends
 * it. A state chunk is parsed in place, over an array that is reused ({@link DownloadParts}) once
 * the loop has copied the chunk into the state or dropped it.
 */
final class SnapshotDownloader {

  /** The outcome of one download, on the loop: the checked piece, or why there is none. */
  interface Outcome {
    void downloaded(PieceAssembler.Restorable piece);

    /** A check failed ({@link CorruptPieceException}'s message) or the RPC did (its status). */
    void failed(String reason);
  }

  private final Channel channel;
  private final MethodDescriptor<DownloadRequest, DownloadPart> method;
  private final DownloadParts parts = new DownloadParts();
  private final WorkerLoop loop;

  /**
   * Parts asked for ahead of the one being checked: the coordinator reads and sends the next chunks
   * while the loop checks and copies this one (about 64 KiB each, 1 MiB at most).
   */
  static final int PARTS_AHEAD = 8;

  private final Duration timeout;
  private final LocalCopy localCopy;
  private volatile Context.CancellableContext current;

  SnapshotDownloader(Channel channel, WorkerLoop loop, Duration timeout) {
    this(channel, loop, timeout, null);
  }

  /**
   * @param localCopy the worker's local copy of its newest piece (local recovery), or null
   */
  SnapshotDownloader(Channel channel, WorkerLoop loop, Duration timeout, LocalCopy localCopy) {
    this.channel = channel;
    MethodDescriptor<DownloadRequest, DownloadPart> generated =
        CoordinatorGrpc.getDownloadSnapshotMethod();
    this.method = generated.toBuilder(generated.getRequestMarshaller(), parts).build();
    this.loop = loop;
    this.timeout = timeout;
    this.localCopy = localCopy;
  }

  /**
   * Starts downloading {@code workerId}'s piece of {@code snapshotId}; on the loop. With a local
   * copy of that snapshot, the state is not downloaded: the header's chunk list is checked against
   * the copy's, and a copy that does not match is deleted (the retry downloads).
   */
  void start(long snapshotId, String workerId, Outcome outcome) {
    LocalCopy.Copy local = localCopy == null ? null : localCopy.read(snapshotId).orElse(null);
    DownloadRequest request =
        DownloadRequest.newBuilder()
            .setSnapshotId(snapshotId)
            .setWorkerId(workerId)
            .setStateIsLocal(local != null)
            .build();
    Context.CancellableContext ctx = Context.current().withCancellation();
    current = ctx;
    PieceAssembler assembler =
        local == null
            ? new PieceAssembler(snapshotId, workerId)
            : new PieceAssembler(snapshotId, workerId, local.content(), local.state());
    Outcome checked =
        local == null
            ? outcome
            : new Outcome() {
              @Override
              public void downloaded(PieceAssembler.Restorable piece) {
                outcome.downloaded(piece);
              }

              @Override
              public void failed(String reason) {
                if (assembler.localMismatch()) {
                  localCopy.discard(snapshotId);
                }
                outcome.failed(reason);
              }
            };
    Download download = new Download(assembler, ctx, checked);
    CallOptions options =
        CallOptions.DEFAULT
            .withExecutor(MoreExecutors.directExecutor())
            .withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
    ctx.run(
        () ->
            ClientCalls.asyncServerStreamingCall(
                channel.newCall(method, options), request, download));
  }

  /** The parts of this downloader's downloads (for tests: what was parsed in place and held). */
  DownloadParts parts() {
    return parts;
  }

  /** Cancels the download in progress, if any. */
  void cancel() {
    Context.CancellableContext ctx = current;
    if (ctx != null) {
      ctx.cancel(null);
    }
  }

  /** One DownloadSnapshot call; the assembler is used on the loop only. */
  private final class Download implements ClientResponseObserver<DownloadRequest, DownloadPart> {
    private final PieceAssembler assembler;
    private final Context.CancellableContext context;
    private final Outcome outcome;
    private ClientCallStreamObserver<DownloadRequest> call;
    private boolean ended; // loop only

    Download(PieceAssembler assembler, Context.CancellableContext context, Outcome outcome) {
      this.assembler = assembler;
      this.context = context;
      this.outcome = outcome;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<DownloadRequest> requestStream) {
      call = requestStream;
      call.disableAutoRequestWithInitial(PARTS_AHEAD);
    }

    @Override
    public void onNext(DownloadPart part) {
      loop.execute(() -> accept(part));
    }

    private void accept(DownloadPart part) {
      try {
        if (ended) {
          return;
        }
        assembler.accept(part);
        call.request(1);
      } catch (CorruptPieceException e) {
        end();
        outcome.failed(e.getMessage());
      } finally {
        parts.release(part); // its bytes are in the state now, or not wanted: reuse its array
      }
    }

    @Override
    public void onError(Throwable t) {
      Status status = Status.fromThrowable(t);
      loop.execute(
          () -> {
            if (!ended) {
              end();
              outcome.failed(
                  "download failed: " + status.getCode() + " " + status.getDescription());
            }
          });
    }

    @Override
    public void onCompleted() {
      loop.execute(
          () -> {
            if (ended) {
              return;
            }
            end();
            PieceAssembler.Restorable piece;
            try {
              piece = assembler.finish();
            } catch (CorruptPieceException e) {
              outcome.failed(e.getMessage());
              return;
            }
            outcome.downloaded(piece);
          });
    }

    private void end() {
      ended = true;
      context.cancel(null); // ends the call if it is still running (a check failed)
      if (current == context) {
        current = null;
      }
    }
  }
}
