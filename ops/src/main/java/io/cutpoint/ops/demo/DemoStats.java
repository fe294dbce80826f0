package io.cutpoint.ops.demo;

import io.cutpoint.ops.format.Json;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** What the demo counted; thread-safe. */
public final class DemoStats {

  final AtomicLong snapshotsCompleted = new AtomicLong();
  final AtomicLong snapshotsChecked = new AtomicLong();
  final AtomicLong snapshotsPartial = new AtomicLong();
  final AtomicLong snapshotsAborted = new AtomicLong();
  final AtomicLong snapshotsFailed = new AtomicLong();
  final AtomicLong snapshotsFailedUnexpected = new AtomicLong();
  final AtomicLong conservationViolations = new AtomicLong();
  final AtomicLong crashes = new AtomicLong();
  final AtomicLong rollbacks = new AtomicLong();
  final AtomicLong recoveriesOk = new AtomicLong();
  final AtomicLong recoveriesFailed = new AtomicLong();
  private final List<Long> snapshotMicros = new ArrayList<>();
  private final List<Long> rollbackMicros = new ArrayList<>();

  synchronized void snapshotTook(long micros) {
    snapshotMicros.add(micros);
  }

  synchronized void rollbackTook(long micros) {
    rollbackMicros.add(micros);
  }

  /** Nearest-rank percentile of the snapshot durations, in milliseconds (0 when none). */
  public synchronized double snapshotPercentileMs(double p) {
    return percentile(snapshotMicros, p) / 1000.0;
  }

  public synchronized double rollbackPercentileMs(double p) {
    return percentile(rollbackMicros, p) / 1000.0;
  }

  /** Nearest-rank percentile of {@code values}; 0 for an empty list. */
  static long percentile(List<Long> values, double p) {
    if (values.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  /**
   * True when no complete snapshot broke conservation, every recovery held, no cut failed
   * unexpectedly.
   */
  public boolean clean() {
    return conservationViolations.get() == 0
        && recoveriesFailed.get() == 0
        && snapshotsFailedUnexpected.get() == 0
        && snapshotsChecked.get() > 0;
  }

  /** True when no check failed, and none ran: the run proved nothing. */
  boolean nothingWrongButNothingChecked() {
    return snapshotsChecked.get() == 0
        && conservationViolations.get() == 0
        && recoveriesFailed.get() == 0
        && snapshotsFailedUnexpected.get() == 0;
  }

  /** The summary object of {@code --json}. */
  public Json.Obj summary(
      DemoOptions o,
      long transfers,
      long sendErrors,
      ConservationCheck.Result finalCheck,
      double seconds) {
    return Json.object()
        .put("event", "summary")
        .put("ok", clean() && finalCheck != null && finalCheck.conserved())
        .put("workers", o.workers())
        .put("topology", o.topology().name().toLowerCase(java.util.Locale.ROOT))
        .put("seed", o.seed())
        .put("duration_s", seconds)
        .put("transfers", transfers)
        .put("send_errors", sendErrors)
        .put("snapshots_completed", snapshotsCompleted.get())
        .put("snapshots_checked", snapshotsChecked.get())
        .put("snapshots_partial", snapshotsPartial.get())
        .put("snapshots_aborted", snapshotsAborted.get())
        .put("snapshots_failed", snapshotsFailed.get())
        .put("snapshots_failed_outside_recovery", snapshotsFailedUnexpected.get())
        .put("conservation_violations", conservationViolations.get())
        .put("crashes", crashes.get())
        .put("rollbacks", rollbacks.get())
        .put("recoveries_ok", recoveriesOk.get())
        .put("recoveries_failed", recoveriesFailed.get())
        .put("p50_snapshot_ms", snapshotPercentileMs(50))
        .put("p99_snapshot_ms", snapshotPercentileMs(99))
        .put("p50_rollback_ms", rollbackPercentileMs(50))
        .put("expected_total", finalCheck == null ? null : finalCheck.expected())
        .put("final_total", finalCheck == null ? null : finalCheck.total());
  }
}
