package io.cutpoint.server.testing;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.server.CoordinatorConfig;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * What the upload tests start from: an in-process coordinator with raw workers {@code a} and {@code
 * b} (channels a -> b and b -> a) joined and welcomed, and one snapshot started (or none: {@link
 * #joined}). {@link #close()} frees all of it.
 */
public final class RawPair implements AutoCloseable {

  public final InProcessCoordinator coordinator;
  public final RawWorker a;
  public final RawWorker b;
  public final long snapshotId;

  public RawPair(CoordinatorConfig config) throws InterruptedException {
    this(new InProcessCoordinator(config));
  }

  /** Over this coordinator, which the pair closes. */
  public RawPair(InProcessCoordinator coordinator) throws InterruptedException {
    this(coordinator, true);
  }

  private RawPair(InProcessCoordinator coordinator, boolean trigger) throws InterruptedException {
    this.coordinator = coordinator;
    a = new RawWorker(coordinator.async(), "a").join(List.of("b"), List.of("b"));
    b = new RawWorker(coordinator.async(), "b").join(List.of("a"), List.of("a"));
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
    snapshotId =
        trigger
            ? coordinator
                .admin()
                .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance())
                .getSnapshotId()
            : 0;
  }

  /**
   * The workers joined over this coordinator, which the pair closes, and no snapshot started
   * ({@link #snapshotId} 0): the test starts one its own way and names it to the pieces.
   */
  public static RawPair joined(InProcessCoordinator coordinator) throws InterruptedException {
    return new RawPair(coordinator, false);
  }

  /**
   * a's piece of the snapshot, in chunks of 4 bytes: a initiated with 3 sent to b, had received
   * none, and recorded nothing on b -> a.
   */
  public List<UploadPart> pieceOfA(byte[] state) {
    return pieceOfA(snapshotId, state);
  }

  /** {@link #pieceOfA(byte[])} of snapshot {@code id}. */
  public static List<UploadPart> pieceOfA(long id, byte[] state) {
    return RawWorker.upload(
        RawWorker.meta(id, "a")
            .addSent(RawWorker.counter("b", 3))
            .addReceived(RawWorker.counter("b", 0)),
        state,
        4,
        List.of(ChannelRecording.newBuilder().setFrom("b").setFirstMarker(false).build()));
  }

  /**
   * b's piece of the snapshot, in chunks of 4 bytes: b had received 1 message from a and recorded
   * {@code recordedSeqs} (payloads "m" + seq) on a -> b; a consistent cut records 2 and 3.
   */
  public List<UploadPart> pieceOfB(byte[] state, long... recordedSeqs) {
    return pieceOfB(snapshotId, state, recordedSeqs);
  }

  /** {@link #pieceOfB(byte[], long...)} of snapshot {@code id}. */
  public static List<UploadPart> pieceOfB(long id, byte[] state, long... recordedSeqs) {
    ChannelRecording.Builder rec = ChannelRecording.newBuilder().setFrom("a");
    for (long s : recordedSeqs) {
      rec.addMessages(
          RecordedMessage.newBuilder().setSeq(s).setPayload(ByteString.copyFromUtf8("m" + s)));
    }
    return RawWorker.upload(
        RawWorker.meta(id, "b")
            .addSent(RawWorker.counter("a", 0))
            .addReceived(RawWorker.counter("a", 1)),
        state,
        4,
        List.of(rec.build()));
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
