package io.cutpoint.server.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.StateChunk;
import io.cutpoint.api.v1.UploadHeader;
import io.cutpoint.api.v1.UploadTrailer;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.server.CoordinatorContext;
import io.cutpoint.server.membership.WorkerIds;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.StoreException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;

/**
 * Sends one worker's piece of a complete snapshot: header, state chunks, the recordings of its
 * incoming channels, trailer. Waits for the transport to be ready between parts (flow control), so
 * a large state is never buffered whole; a download not finished within the coordinator's download
 * timeout (a receiver that stopped reading) ends with DEADLINE_EXCEEDED and frees its thread.
 *
 * <p>Each state chunk is read into an array of {@link ChunkArrays}, which gRPC hands back once it
 * has written the part.
 *
 * <p>Runs on a {@code cutpoint-transfer} thread of its own. The I/O edge keeps one monitor here,
 * {@code ready}, which guards no state: the transfer thread waits on it until the transport is
 * ready (gRPC flow control) and the transport's callbacks notify it.
 */
final class DownloadSender {

  private static final int MESSAGES_PER_PART = 1000;
  private static final long BYTES_PER_PART = 1 << 20;

  private final CoordinatorContext ctx;
  private final ChunkArrays arrays;
  private final ServerCallStreamObserver<DownloadPart> out;
  private final Object ready = new Object();
  private long deadlineNanos;

  DownloadSender(CoordinatorContext ctx, ChunkArrays arrays, StreamObserver<DownloadPart> out) {
    this.ctx = ctx;
    this.arrays = arrays;
    this.out = (ServerCallStreamObserver<DownloadPart>) out;
    this.out.setOnReadyHandler(
        () -> {
          synchronized (ready) {
            ready.notifyAll();
          }
        });
    this.out.setOnCancelHandler(
        () -> {
          synchronized (ready) {
            ready.notifyAll();
          }
        });
  }

  void send(DownloadRequest request) {
    deadlineNanos = System.nanoTime() + ctx.config().downloadTimeout().toNanos();
    try {
      SnapshotManifest manifest = check(request);
      String worker = request.getWorkerId();
      long id = request.getSnapshotId();
      LocalSnapshotMeta meta =
          ctx.store()
              .workerMeta(id, worker)
              .orElseThrow(
                  () ->
                      Status.DATA_LOSS
                          .withDescription(
                              "snapshot " + id + " has no stored counters of worker " + worker)
                          .asRuntimeException());
      put(DownloadPart.newBuilder().setHeader(UploadHeader.newBuilder().setMeta(meta)).build());
      int[] index = {0};
      // a worker that keeps the state on its disk checks its copy against the header's list
      boolean local = request.getStateIsLocal() && meta.getContentCount() > 0;
      int chunks =
          local
              ? 0
              : ctx.store()
                  .readState(
                      id,
                      worker,
                      arrays::take,
                      (data, length, crc) -> {
                        DownloadPart part =
                            DownloadPart.newBuilder()
                                .setStateChunk(
                                    StateChunk.newBuilder()
                                        .setIndex(index[0]++)
                                        // the lent array itself: no copy until gRPC writes it
                                        .setData(UnsafeByteOperations.unsafeWrap(data, 0, length))
                                        .setCrc32C(crc))
                                .build();
                        arrays.sending(data);
                        try {
                          put(part);
                        } finally {
                          arrays.sent();
                        }
                      });
      long messages = 0;
      for (String from : incoming(manifest, worker)) {
        List<InTransitMessage> recorded = ctx.store().readChannel(id, ChannelId.of(from, worker));
        messages += recorded.size();
        sendChannel(from, recorded);
      }
      put(
          DownloadPart.newBuilder()
              .setTrailer(
                  UploadTrailer.newBuilder().setStateChunks(chunks).setRecordedMessages(messages))
              .build());
      out.onCompleted();
    } catch (StatusRuntimeException e) {
      error(e.getStatus());
    } catch (CorruptionException e) {
      error(Status.DATA_LOSS.withDescription(e.getMessage()));
    } catch (io.cutpoint.storage.NoSuchSnapshotException e) {
      error(Status.NOT_FOUND.withDescription(e.getMessage()));
    } catch (StoreException e) {
      error(Status.UNAVAILABLE.withDescription("store failed: " + e.getMessage()));
    }
  }

  private SnapshotManifest check(DownloadRequest request) {
    if (request.getSnapshotId() <= 0) {
      throw Status.INVALID_ARGUMENT.withDescription("snapshot_id is required").asRuntimeException();
    }
    WorkerIds.problem(request.getWorkerId())
        .ifPresent(
            p -> {
              throw Status.INVALID_ARGUMENT.withDescription(p).asRuntimeException();
            });
    OwnSession.require(ctx, request.getWorkerId(), "download");
    SnapshotManifest m =
        ctx.store()
            .manifest(request.getSnapshotId())
            .orElseThrow(
                () ->
                    Status.NOT_FOUND
                        .withDescription("no snapshot " + request.getSnapshotId())
                        .asRuntimeException());
    if (m.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      throw Status.FAILED_PRECONDITION
          .withDescription(
              "snapshot "
                  + request.getSnapshotId()
                  + " is "
                  + m.getStatus()
                  + "; only complete snapshots can be downloaded")
          .asRuntimeException();
    }
    if (m.getTopology().getWorkersList().stream()
        .noneMatch(w -> w.getWorkerId().equals(request.getWorkerId()))) {
      throw Status.NOT_FOUND
          .withDescription(
              "snapshot "
                  + request.getSnapshotId()
                  + " has no piece of worker "
                  + request.getWorkerId())
          .asRuntimeException();
    }
    return m;
  }

  private static List<String> incoming(SnapshotManifest m, String worker) {
    return m.getTopology().getWorkersList().stream()
        .filter(w -> w.getWorkerId().equals(worker))
        .findFirst()
        .<List<String>>map(WorkerDecl::getIncomingList)
        .orElse(List.of());
  }

  private void sendChannel(String from, List<InTransitMessage> recorded) {
    ChannelRecording.Builder part = ChannelRecording.newBuilder().setFrom(from);
    long bytes = 0;
    for (InTransitMessage m : recorded) {
      part.addMessages(
          RecordedMessage.newBuilder()
              .setSeq(m.seq())
              .setPayload(ByteString.copyFrom(m.payload())));
      bytes += m.payload().length;
      if (part.getMessagesCount() >= MESSAGES_PER_PART || bytes >= BYTES_PER_PART) {
        put(DownloadPart.newBuilder().setChannel(part).build());
        part = ChannelRecording.newBuilder().setFrom(from);
        bytes = 0;
      }
    }
    if (part.getMessagesCount() > 0 || recorded.isEmpty()) {
      put(DownloadPart.newBuilder().setChannel(part).build());
    }
  }

  private void put(DownloadPart part) {
    synchronized (ready) {
      while (!out.isReady() && !out.isCancelled()) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          throw Status.DEADLINE_EXCEEDED
              .withDescription(
                  "the download did not finish within "
                      + ctx.config().downloadTimeout().toMillis()
                      + " ms (download-timeout): the worker stopped reading")
              .asRuntimeException();
        }
        try {
          ready.wait(Math.max(1, Math.min(10, left / 1_000_000)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
        }
      }
    }
    if (out.isCancelled()) {
      throw Status.CANCELLED
          .withDescription("the worker cancelled the download")
          .asRuntimeException();
    }
    out.onNext(part);
  }

  private void error(Status status) {
    if (out.isCancelled()) {
      return;
    }
    try {
      out.onError(status.asRuntimeException());
    } catch (RuntimeException ignored) {
      // cancelled meanwhile
    }
  }
}
