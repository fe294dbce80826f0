package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.server.CoordinatorContext;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/** The worker-facing service: thin handlers over the coordinator's parts. */
public final class CoordinatorService extends CoordinatorGrpc.CoordinatorImplBase {

  private final CoordinatorContext ctx;
  private final UploadClaims claims = new UploadClaims();
  private final ChunkFinder chunks;
  private final ChunkArrays arrays = new ChunkArrays();

  public CoordinatorService(CoordinatorContext ctx) {
    this.ctx = ctx;
    this.chunks = new ChunkFinder(ctx);
  }

  /**
   * What to serve: the generated definition, with the parts of a download written over reused
   * arrays ({@link ChunkArrays}).
   */
  public io.grpc.ServerServiceDefinition definition() {
    return arrays.lendingTo(bindService());
  }

  @Override
  public void findChunks(
      io.cutpoint.api.v1.ChunkQuery request,
      StreamObserver<io.cutpoint.api.v1.ChunkAnswer> responseObserver) {
    chunks.find(request, responseObserver);
  }

  @Override
  public StreamObserver<WorkerMessage> session(
      StreamObserver<CoordinatorMessage> responseObserver) {
    return new SessionStream(ctx, claims, responseObserver);
  }

  @Override
  public StreamObserver<UploadPart> uploadSnapshot(StreamObserver<UploadResult> responseObserver) {
    if (responseObserver instanceof ServerCallStreamObserver<UploadResult> call) {
      call.disableAutoRequest(); // the receiver reads as fast as the store writes
      UploadReceiver receiver =
          new UploadReceiver(ctx, claims, UploadReceiver.Owner.ofCall(ctx), responseObserver, call);
      call.request(1);
      return receiver;
    }
    return new UploadReceiver(
        ctx, claims, UploadReceiver.Owner.ofCall(ctx), responseObserver, null);
  }

  @Override
  public void downloadSnapshot(
      DownloadRequest request, StreamObserver<DownloadPart> responseObserver) {
    DownloadSender sender = new DownloadSender(ctx, arrays, responseObserver);
    try {
      // in the call's context: the caller's identity travels with it
      ctx.transfers().execute(io.grpc.Context.current().wrap(() -> sender.send(request)));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      responseObserver.onError(
          io.grpc.Status.RESOURCE_EXHAUSTED
              .withDescription(
                  "the coordinator serves "
                      + io.cutpoint.server.CoordinatorServer.MAX_DOWNLOADS
                      + " downloads at once and queues as many more as it allows workers, or is"
                      + " shutting down; try again")
              .asRuntimeException());
    }
  }
}
