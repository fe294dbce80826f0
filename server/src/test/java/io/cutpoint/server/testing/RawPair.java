package io.cutpoint.server.testing;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.server.CoordinatorConfig;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * What the upload tests start from: an in-process coordinator with raw workers {@code a} and {@code
 * b} (channels a -> b and b -> a) joined and welcomed, and one snapshot started. {@link #close()}
 * frees all of it.
 */
public final class RawPair implements AutoCloseable {

  public final InProcessCoordinator coordinator;
  public final RawWorker a;
  public final RawWorker b;
  public final long snapshotId;

  public RawPair(CoordinatorConfig config) throws InterruptedException {
    coordinator = new InProcessCoordinator(config);
    a = new RawWorker(coordinator.async(), "a").join(List.of("b"), List.of("b"));
    b = new RawWorker(coordinator.async(), "b").join(List.of("a"), List.of("a"));
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
    snapshotId =
        coordinator
            .admin()
            .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance())
            .getSnapshotId();
  }

  /** How an upload ended: OK when it was answered, else the status it failed with. */
  public static Status statusOf(CompletableFuture<UploadResult> upload) throws Exception {
    try {
      upload.get(30, TimeUnit.SECONDS);
      return Status.OK;
    } catch (ExecutionException e) {
      return Status.fromThrowable(e.getCause());
    }
  }

  @Override
  public void close() throws Exception {
    a.close();
    b.close();
    coordinator.close();
  }
}
