package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ops.format.Table;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** {@code cutpoint show ID --trace} for people: one line per worker, then the critical path. */
final class SnapshotTraceView {

  private SnapshotTraceView() {}

  static String render(long id, SnapshotStatus status, SnapshotTrace t) {
    StringBuilder b = new StringBuilder();
    b.append("Trace of snapshot ")
        .append(id)
        .append(" (ms from the start commands, coordinator's clock; a worker's steps are placed by")
        .append(" the arrival of its piece's header):\n");
    Table table =
        new Table("WORKER", ">BEGAN", ">CAPTURED", ">COMPLETE", ">HEADER", ">DELIVERED", "CLOSED");
    for (SnapshotTrace.Worker w : t.workers()) {
      table.row(
          w.id(),
          ms(w.began()),
          ms(w.captured()),
          ms(w.completed()),
          ms(w.headerReceived()),
          ms(w.delivered()),
          closed(w.closed()));
    }
    b.append(table.render());
    b.append(
            status == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE
                ? "verified and handed to the store for its synced commit at "
                : "ended at ")
        .append(ms(t.endMillis()))
        .append(" ms\n");
    b.append("Critical path, through ").append(t.last().id()).append(", the last piece delivered:");
    StringJoiner steps = new StringJoiner(", ", " ", "\n");
    t.criticalPath().forEach((step, millis) -> steps.add(step + " " + ms(millis)));
    b.append(steps);
    if (!t.toUpload().isEmpty()) {
      StringJoiner toUpload =
          new StringJoiner(", ", "To upload, its state as content chunks: ", "\n");
      t.toUpload().forEach((step, millis) -> toUpload.add(step + " " + ms(millis)));
      b.append(toUpload);
    }
    return b.toString();
  }

  private static String closed(Map<String, Double> closed) {
    if (closed.isEmpty()) {
      return "-";
    }
    StringJoiner j = new StringJoiner(" ");
    closed.forEach((from, at) -> j.add(from + "@" + ms(at)));
    return j.toString();
  }

  private static String ms(double millis) {
    return Double.isNaN(millis) ? "-" : String.format(Locale.ROOT, "%.2f", millis);
  }
}
