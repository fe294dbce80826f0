package io.cutpoint.ops.crash;

import io.cutpoint.client.ForwardingWorkerControl;
import io.cutpoint.client.Worker;
import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The worker as its coordinator session sees it, reporting on stdout what the test checks: every
 * local snapshot it completes ({@code CP PIECE}: balance, amounts recorded in transit, CRC of the
 * state) and every restore ({@code CP RESTORED}: the snapshot, the epoch, and the application's
 * balance and state CRC read on the event thread right after the restore, before any resume).
 */
final class ReportingControl extends ForwardingWorkerControl {

  private final Worker worker;
  private final CrashAccount account;
  private final Consumer<String> out;

  ReportingControl(Worker worker, CrashAccount account, Consumer<String> out) {
    super(worker);
    this.worker = worker;
    this.account = account;
    this.out = out;
  }

  @Override
  public void restore(long epoch, LocalSnapshot piece, byte[] state) {
    worker.restore(epoch, piece, state);
    CompletableFuture<byte[]> after = new CompletableFuture<>();
    worker.execute(() -> after.complete(account.capture()));
    byte[] now;
    try {
      now = after.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("could not read the state after the restore", e);
    }
    out.accept(
        "CP RESTORED w="
            + worker.workerId()
            + " s="
            + piece.snapshotId()
            + " e="
            + epoch
            + " bal="
            + CrashAccount.balanceOf(now)
            + " crc="
            + crc(now)
            + " inflight="
            + inFlight(piece.recordings()));
  }

  @Override
  public void setSnapshotListener(LocalSnapshotListener listener) {
    worker.setSnapshotListener(
        new LocalSnapshotListener() {
          @Override
          public void captured(long snapshotId, CapturedState state) {
            listener.captured(snapshotId, state);
          }

          @Override
          public void dropped(long snapshotId) {
            listener.dropped(snapshotId);
          }

          @Override
          public void completed(CompletedLocalSnapshot s) {
            byte[] state = s.state().state();
            out.accept(
                "CP PIECE w="
                    + worker.workerId()
                    + " s="
                    + s.cut().snapshotId()
                    + " e="
                    + worker.epoch()
                    + " bal="
                    + CrashAccount.balanceOf(state)
                    + " crc="
                    + crc(state)
                    + " inflight="
                    + inFlight(s.cut().recordings()));
            listener.completed(s);
          }

          @Override
          public void failed(long snapshotId, String reason) {
            listener.failed(snapshotId, reason);
          }
        });
  }

  static long inFlight(Map<String, List<InTransitMessage>> recordings) {
    long sum = 0;
    for (List<InTransitMessage> msgs : recordings.values()) {
      for (InTransitMessage m : msgs) {
        sum += CrashAccount.amountOf(m.payload());
      }
    }
    return sum;
  }

  static long crc(byte[] bytes) {
    CRC32C c = new CRC32C();
    c.update(bytes);
    return c.getValue();
  }
}
