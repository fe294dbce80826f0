package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.api.v1.Violation;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Table;
import java.util.List;
import java.util.stream.Collectors;

/** Human-readable views of snapshot manifests. */
public final class SnapshotViews {

  private SnapshotViews() {}

  public static String status(SnapshotStatus s) {
    return Human.enumName(s, "SNAPSHOT_STATUS_");
  }

  public static String trigger(SnapshotTrigger t) {
    return Human.enumName(t, "SNAPSHOT_TRIGGER_");
  }

  /** Duration from the manifest's total timing, or from its timestamps. */
  public static long totalMicros(SnapshotManifest m) {
    if (m.getTimings().getTotalMicros() > 0) {
      return m.getTimings().getTotalMicros();
    }
    if (m.getFinishedAtUnixMs() > 0 && m.getStartedAtUnixMs() > 0) {
      return (m.getFinishedAtUnixMs() - m.getStartedAtUnixMs()) * 1000;
    }
    return 0;
  }

  /** One row per snapshot. */
  public static Table listTable(List<SnapshotManifest> snapshots) {
    Table t =
        new Table(
            ">ID",
            "STATUS",
            "TRIGGER",
            "STARTED",
            ">DURATION",
            ">WORKERS",
            ">STATE",
            ">IN-FLIGHT",
            "PINNED",
            "REASON");
    for (SnapshotManifest m : snapshots) {
      t.row(
          m.getSnapshotId(),
          statusWithDamage(m),
          trigger(m.getTrigger()),
          Human.time(m.getStartedAtUnixMs()),
          Human.micros(totalMicros(m)),
          m.getTopology().getWorkersCount(),
          Human.bytes(m.getTotalStateBytes()),
          m.getInFlightMessages() + " (" + Human.bytes(m.getTotalChannelBytes()) + ")",
          m.getPinned() ? "yes" : "",
          shorten(m.getDamage().isEmpty() ? m.getReason() : m.getDamage(), 60));
    }
    return t;
  }

  /**
   * The status, with {@code DAMAGED} when a stored piece fails its checks (such a snapshot cannot
   * be restored); just {@code DAMAGED} when even its manifest cannot be read.
   */
  public static String statusWithDamage(SnapshotManifest m) {
    if (m.getDamage().isEmpty()) {
      return status(m.getStatus());
    }
    return m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_UNSPECIFIED
        ? "DAMAGED"
        : status(m.getStatus()) + " DAMAGED";
  }

  /** One sentence about a snapshot's outcome. */
  public static String summaryLine(SnapshotManifest m) {
    StringBuilder b =
        new StringBuilder("snapshot ")
            .append(m.getSnapshotId())
            .append(' ')
            .append(status(m.getStatus()));
    if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
      return b.append(" (")
          .append(m.getTopology().getWorkersCount())
          .append(" workers)")
          .toString();
    }
    String took = Human.micros(totalMicros(m));
    if (!took.isEmpty()) {
      b.append(" in ").append(took);
    }
    b.append(": ")
        .append(m.getTopology().getWorkersCount())
        .append(" workers, ")
        .append(Human.bytes(m.getTotalStateBytes()))
        .append(" state, ")
        .append(m.getInFlightMessages())
        .append(" messages in flight (")
        .append(Human.bytes(m.getTotalChannelBytes()))
        .append(')');
    if (!m.getReason().isEmpty()) {
      b.append("; reason: ").append(m.getReason());
    }
    return b.toString();
  }

  /** The manifest as {@code key: value} lines, then its violations and per-worker pieces. */
  public static String details(SnapshotManifest m) {
    StringBuilder b = new StringBuilder();
    kv(b, "snapshot", m.getSnapshotId());
    kv(b, "status", statusWithDamage(m) + (m.getPinned() ? " (pinned)" : ""));
    if (!m.getDamage().isEmpty()) {
      kv(b, "damage", m.getDamage() + " (cannot be restored)");
    }
    kv(b, "trigger", trigger(m.getTrigger()));
    kv(b, "epoch", m.getEpoch());
    kv(b, "started", Human.time(m.getStartedAtUnixMs()));
    kv(b, "finished", Human.time(m.getFinishedAtUnixMs()));
    kv(b, "duration", Human.micros(totalMicros(m)));
    kv(
        b,
        "phases",
        "markers "
            + orDash(Human.micros(m.getTimings().getMarkerPropagationMicros()))
            + ", upload "
            + orDash(Human.micros(m.getTimings().getUploadMicros()))
            + ", commit "
            + orDash(Human.micros(m.getTimings().getCommitMicros())));
    kv(b, "initiators", String.join(", ", m.getInitiatorsList()));
    kv(b, "workers", m.getTopology().getWorkersCount());
    kv(b, "state", Human.bytes(m.getTotalStateBytes()));
    kv(
        b,
        "in flight",
        m.getInFlightMessages()
            + (m.getInFlightMessages() == 1 ? " message, " : " messages, ")
            + Human.bytes(m.getTotalChannelBytes()));
    if (!m.getReason().isEmpty()) {
      kv(b, "reason", m.getReason());
    }
    if (m.getViolationsCount() > 0) {
      b.append("\nViolations:\n");
      for (Violation v : m.getViolationsList()) {
        String where =
            v.hasChannel()
                ? v.getChannel().getFrom() + "->" + v.getChannel().getTo()
                : v.getWorkerId();
        b.append("  ")
            .append(where.isEmpty() ? "" : where + ": ")
            .append(v.getMessage())
            .append('\n');
      }
    }
    if (m.getPiecesCount() > 0) {
      b.append("\nWorkers:\n");
      Table t =
          new Table(
              "WORKER",
              ">STATE",
              ">CHUNKS",
              ">IN-FLIGHT",
              ">CHANNEL",
              "ACTIVITY",
              "SENT",
              "RECEIVED",
              ">RECORDING");
      for (WorkerPiece p : m.getPiecesList()) {
        t.row(
            p.getWorkerId(),
            Human.bytes(p.getMeta().getStateBytes()),
            p.getStateChunks(),
            p.getInFlightMessages(),
            Human.bytes(p.getChannelBytes()),
            Human.enumName(p.getMeta().getActivity(), "ACTIVITY_"),
            counters(p.getMeta().getSentList()),
            counters(p.getMeta().getReceivedList()),
            p.getMeta().getRecordingMillis() + "ms");
      }
      indent(b, t.render());
    } else if (m.getTopology().getWorkersCount() > 0) {
      b.append("\nWorkers: ")
          .append(
              m.getTopology().getWorkersList().stream()
                  .map(WorkerDecl::getWorkerId)
                  .collect(Collectors.joining(", ")))
          .append('\n');
    }
    return b.toString();
  }

  static String counters(List<ChannelCounter> counters) {
    return counters.stream()
        .map(c -> c.getPeer() + "=" + c.getCount())
        .collect(Collectors.joining(","));
  }

  static void indent(StringBuilder b, String block) {
    for (String line : block.split("\n")) {
      b.append("  ").append(line).append('\n');
    }
  }

  private static void kv(StringBuilder b, String key, Object value) {
    b.append(String.format("%-11s %s%n", key + ":", value));
  }

  private static String orDash(String s) {
    return s.isEmpty() ? "-" : s;
  }

  static String shorten(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 3) + "...";
  }
}
