package io.cutpoint.ops.bench;

import io.cutpoint.ops.format.Json;
import io.cutpoint.ops.format.Table;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The incremental-snapshot section of {@link BenchReport}: its table, its targets and its JSON
 * object ({@code "incremental"}).
 */
final class IncrementalReport {

  /** A target of this section, with a stable key for the JSON. */
  record Check(String key, BenchReport.Target target) {}

  /** The change the first two targets are about: 1% of each state, in one run. */
  static final double TARGET_FRACTION = 0.01;

  /** The change the latency target of the second shape is about: 0.1%, in one run. */
  static final double LARGE_TARGET_FRACTION = 0.001;

  private final IncrementalPhase.Result r;

  IncrementalReport(IncrementalPhase.Result result) {
    this.r = result;
  }

  /**
   * The section's targets: on the first shape (the 8-worker mesh), a change of 1% in one run takes
   * at most 3 times the small state's p50 and uploads at most 3% of the state bytes; on the second
   * (the 2-worker ring of 256 MiB), a change of 0.1% in one run takes at most 300 ms at the p50.
   */
  List<Check> checks() {
    List<Check> checks = new ArrayList<>();
    List<IncrementalPhase.Shape> shapes = shapes();
    if (!shapes.isEmpty()) {
      IncrementalPhase.Shape s = shapes.get(0);
      var row = r.row(s, TARGET_FRACTION, StateEdit.Pattern.ONE_RUN);
      double p50 = row.map(x -> x.measured().latency().p50()).orElse(Double.NaN);
      String what = s.label() + ", " + percent(TARGET_FRACTION) + " changed in one run";
      checks.add(
          new Check(
              "p50_over_small_p50",
              new BenchReport.Target(
                  what + ": p50 / " + smallLabel() + " p50",
                  "<= 3x",
                  p50 / r.small().latency().p50(),
                  true,
                  3)));
      checks.add(
          new Check(
              "uploaded_percent",
              new BenchReport.Target(
                  what + ": % of state bytes uploaded",
                  "<= 3%",
                  row.map(x -> 100 * x.uploadedFraction()).orElse(Double.NaN),
                  true,
                  3)));
    }
    if (r.keyed() != null) {
      checks.add(
          new Check(
              "keyed_p50_over_small_p50",
              new BenchReport.Target(
                  keyedLabel() + ": p50 / " + smallLabel() + " p50",
                  "<= 3x",
                  r.keyed().measured().latency().p50() / r.small().latency().p50(),
                  true,
                  3)));
    }
    if (shapes.size() > 1) {
      IncrementalPhase.Shape s = shapes.get(1);
      checks.add(
          new Check(
              "large_p50_ms",
              new BenchReport.Target(
                  s.label() + ", " + percent(LARGE_TARGET_FRACTION) + " changed in one run: p50 ms",
                  "<= 300 ms",
                  r.row(s, LARGE_TARGET_FRACTION, StateEdit.Pattern.ONE_RUN)
                      .map(x -> x.measured().latency().p50())
                      .orElse(Double.NaN),
                  true,
                  300)));
    }
    return checks;
  }

  private List<IncrementalPhase.Shape> shapes() {
    return r.full().stream().map(IncrementalPhase.Full::shape).toList();
  }

  /** As {@code 16 MiB x 8 mesh as 1 KiB entries, 1% changed in one run}. */
  private String keyedLabel() {
    IncrementalPhase.Keyed k = r.keyed();
    return k.shape().label()
        + " as "
        + BenchReport.bytes(KeyedBenchApp.VALUE_BYTES)
        + " entries, "
        + percent(k.fraction())
        + " changed in one run";
  }

  private String smallLabel() {
    return r.smallShape() == null ? "small" : r.smallShape().label();
  }

  String tables() {
    StringBuilder b = new StringBuilder();
    b.append(
        "Incremental snapshots, idle: states go up as content-defined chunks (FastCDC ~64 KiB,"
            + " SHA-256), only those the store lacks; between two snapshots each worker changes"
            + " a fraction of its (random) state, in one run or in 4 KiB records at random (on a"
            + " copy, untimed). uploaded: state bytes of all workers per snapshot, p50; upload,"
            + " commit: the coordinator's phases, p50; full: the same cluster with content chunks"
            + " off\n");
    Table t =
        new Table(
            ">state",
            ">workers",
            "layout",
            ">changed",
            ">bytes/worker",
            "pattern",
            ">n",
            ">failed",
            ">uploaded",
            ">of state",
            ">p50 ms",
            ">p99 ms",
            ">upload",
            ">commit",
            ">full p50 ms",
            ">p50/full");
    for (IncrementalPhase.Row row : r.rows()) {
      IncrementalPhase.Measured m = row.measured();
      t.row(
          BenchReport.bytes(row.shape().stateBytes()),
          row.shape().workers(),
          row.shape().layout(),
          percent(row.fraction()),
          size(row.changedBytes()),
          row.pattern().label(),
          m.latency().count(),
          m.failed(),
          size(m.uploaded().p50()),
          percentOf(row.uploadedFraction()),
          BenchReport.ms(m.latency().p50()),
          BenchReport.ms(m.latency().p99()),
          BenchReport.ms(m.upload().p50()),
          BenchReport.ms(m.commit().p50()),
          BenchReport.ms(row.fullP50Millis()),
          ratio(row.ratioToFull()));
    }
    b.append(t.render()).append('\n');
    Table ft =
        new Table(
            "baseline",
            ">n",
            ">failed",
            ">uploaded",
            ">of state",
            ">p50 ms",
            ">p99 ms",
            ">upload",
            ">commit",
            "note");
    for (IncrementalPhase.Full f : r.full()) {
      baseline(
          ft,
          f.shape().label() + ", full (content chunks off)",
          f.measured(),
          percentOf(f.uploadedFraction()),
          f.skipped());
    }
    if (r.smallShape() != null) {
      baseline(ft, smallLabel() + ", content chunks", r.small(), "", null);
    }
    if (r.keyed() != null) {
      baseline(
          ft, keyedLabel(), r.keyed().measured(), percentOf(r.keyed().uploadedFraction()), null);
    }
    if (r.shared() != null) {
      IncrementalPhase.Shared sh = r.shared();
      baseline(
          ft,
          sh.shape().label()
              + ", "
              + percent(sh.fraction())
              + " changed in one run, on the object store (S3Proxy and ZooKeeper in this JVM)",
          sh.measured(),
          percentOf(sh.uploadedFraction()),
          null);
    }
    b.append(ft.render()).append('\n');
    b.append(criticalPaths());
    Table tt = new Table("target", "limit", ">measured", "");
    for (Check c : checks()) {
      BenchReport.Target target = c.target();
      Boolean met = target.met();
      String measured =
          switch (c.key()) {
            case "p50_over_small_p50", "keyed_p50_over_small_p50" -> ratio(target.measured());
            case "uploaded_percent" ->
                Double.isNaN(target.measured())
                    ? "-"
                    : String.format(Locale.ROOT, "%.2f%%", target.measured());
            default -> BenchReport.ms(target.measured()) + " ms";
          };
      tt.row(target.name(), target.limit(), measured, met == null ? "n/a" : met ? "met" : "MISSED");
    }
    b.append(tt.render()).append("peak heap ").append(r.peakHeapBytes() >> 20).append(" MiB\n\n");
    return b.toString();
  }

  /** A row of the baselines' table; {@code skipped} (or else a failure) is its note. */
  private static void baseline(
      Table t, String label, IncrementalPhase.Measured m, String ofState, String skipped) {
    t.row(
        label,
        m.latency().count(),
        m.failed(),
        size(m.uploaded().p50()),
        ofState,
        BenchReport.ms(m.latency().p50()),
        BenchReport.ms(m.latency().p99()),
        BenchReport.ms(m.upload().p50()),
        BenchReport.ms(m.commit().p50()),
        skipped != null ? skipped : failureNote(m));
  }

  /**
   * Where the p50 of the targets' rows and of the baselines goes: the p50 of each step of the
   * critical path, one line a configuration.
   */
  private String criticalPaths() {
    StringBuilder b = new StringBuilder();
    List<IncrementalPhase.Shape> shapes = shapes();
    for (int i = 0; i < shapes.size(); i++) {
      IncrementalPhase.Shape s = shapes.get(i);
      double fraction = i == 0 ? TARGET_FRACTION : LARGE_TARGET_FRACTION;
      r.row(s, fraction, StateEdit.Pattern.ONE_RUN)
          .ifPresent(
              row -> path(b, s.label() + ", " + percent(fraction) + " in one run", row.measured()));
      path(b, s.label() + ", full", r.full().get(i).measured());
    }
    if (r.keyed() != null) {
      path(b, keyedLabel(), r.keyed().measured());
    }
    if (r.smallShape() != null) {
      path(b, smallLabel(), r.small());
    }
    return b.length() == 0
        ? ""
        : "Where the p50 goes (p50 of each step of the critical path through the last piece"
            + " delivered, ms; to upload: chunking and hashing the state and asking for the missing"
            + " chunks, when content chunks are on)\n"
            + b
            + '\n';
  }

  private static void path(StringBuilder b, String what, IncrementalPhase.Measured m) {
    if (m.criticalPath().isEmpty()) {
      return;
    }
    sum(b.append("  ").append(what).append(": p50 "), m.latency(), m.criticalPath());
    if (!m.toUpload().isEmpty()) {
      sum(b.append("    to upload "), m.criticalPath().get("to upload"), m.toUpload());
    }
  }

  /** One line: {@code total} = each step's p50, joined by " + ". */
  private static void sum(StringBuilder b, Samples total, Map<String, Samples> steps) {
    b.append(BenchReport.ms(total.p50()));
    String sep = " = ";
    for (var e : steps.entrySet()) {
      b.append(sep).append(e.getKey()).append(' ').append(BenchReport.ms(e.getValue().p50()));
      sep = " + ";
    }
    b.append('\n');
  }

  /** The first failure's reason, if any snapshot failed. */
  private static String failureNote(IncrementalPhase.Measured m) {
    return m.failure() == null ? "" : "first failure: " + m.failure();
  }

  Json.Obj json() {
    List<Object> rows = new ArrayList<>();
    for (IncrementalPhase.Row row : r.rows()) {
      rows.add(
          shape(row.shape())
              .put("changed_fraction", row.fraction())
              .put("pattern", row.pattern().label())
              .put("changed_bytes", row.changedBytes())
              .putAll(measured(row.measured()))
              .put("uploaded_fraction", row.uploadedFraction())
              .put("uploaded_percent", 100 * row.uploadedFraction())
              .put("full_p50_ms", row.fullP50Millis())
              .put("ratio_to_full", row.ratioToFull()));
    }
    List<Object> full = new ArrayList<>();
    for (IncrementalPhase.Full f : r.full()) {
      full.add(
          shape(f.shape())
              .putAll(measured(f.measured()))
              .put("uploaded_fraction", f.uploadedFraction())
              .put("skipped", f.skipped()));
    }
    List<Object> targets = new ArrayList<>();
    for (Check c : checks()) {
      targets.add(
          Json.object()
              .put("key", c.key())
              .put("what", c.target().name())
              .put("target", c.target().limit())
              .put("measured", c.target().measured())
              .put("met", c.target().met()));
    }
    IncrementalPhase.Shape small = r.smallShape();
    return Json.object()
        .put("rows", rows)
        .put("full", full)
        .put("small_state_bytes", small == null ? null : small.stateBytes())
        .put("small_workers", small == null ? null : small.workers())
        .put("small_layout", small == null ? null : small.layout())
        .put("small_samples", r.small().latency().count())
        .put("small_failed", r.small().failed())
        .put("small_p50_ms", r.small().latency().p50())
        .put("small_p99_ms", r.small().latency().p99())
        .put("keyed", keyed())
        .put("shared", shared())
        .put("targets", targets)
        .put("peak_heap_mib", r.peakHeapBytes() >> 20);
  }

  /** The row of the first shape as entries, or null. */
  private Json.Obj keyed() {
    IncrementalPhase.Keyed k = r.keyed();
    return k == null
        ? null
        : shape(k.shape())
            .put("value_bytes", KeyedBenchApp.VALUE_BYTES)
            .put("changed_fraction", k.fraction())
            .putAll(measured(k.measured()))
            .put("uploaded_fraction", k.uploadedFraction())
            .put("uploaded_percent", 100 * k.uploadedFraction());
  }

  /** The object store's row, or null. */
  private Json.Obj shared() {
    IncrementalPhase.Shared sh = r.shared();
    return sh == null
        ? null
        : shape(sh.shape())
            .put("changed_fraction", sh.fraction())
            .putAll(measured(sh.measured()))
            .put("uploaded_fraction", sh.uploadedFraction())
            .put("uploaded_percent", 100 * sh.uploadedFraction());
  }

  private static Json.Obj measured(IncrementalPhase.Measured m) {
    return Json.object()
        .put("samples", m.latency().count())
        .put("failed", m.failed())
        .put("failure", m.failure())
        .put("uploaded_bytes_p50", bytes(m.uploaded().p50()))
        .put("p50_ms", m.latency().p50())
        .put("p99_ms", m.latency().p99())
        .put("upload_p50_ms", m.upload().p50())
        .put("commit_p50_ms", m.commit().p50())
        .put("critical_path_p50_ms", steps(m.criticalPath()))
        .put("to_upload_p50_ms", m.toUpload().isEmpty() ? null : steps(m.toUpload()));
  }

  private static Json.Obj steps(Map<String, Samples> steps) {
    Json.Obj o = Json.object();
    steps.forEach((step, samples) -> o.put(step.replace(' ', '_'), samples.p50()));
    return o;
  }

  private static Json.Obj shape(IncrementalPhase.Shape s) {
    return Json.object()
        .put("state_bytes", s.stateBytes())
        .put("workers", s.workers())
        .put("layout", s.layout());
  }

  /** A whole number of bytes, or null without samples. */
  private static Long bytes(double v) {
    return Double.isNaN(v) ? null : Math.round(v);
  }

  /** {@code 0.001} as {@code 0.1%}. */
  static String percent(double fraction) {
    return BigDecimal.valueOf(fraction * 100)
            .round(new MathContext(6))
            .stripTrailingZeros()
            .toPlainString()
        + "%";
  }

  private static String percentOf(double fraction) {
    return Double.isNaN(fraction) ? "-" : String.format(Locale.ROOT, "%.2f%%", 100 * fraction);
  }

  private static String ratio(double v) {
    return Double.isNaN(v) || Double.isInfinite(v)
        ? "-"
        : String.format(Locale.ROOT, v < 10 ? "%.2fx" : "%.1fx", v);
  }

  /** Bytes in KiB or MiB, to two decimals. */
  private static String size(double b) {
    if (Double.isNaN(b)) {
      return "-";
    }
    if (b >= 1 << 20) {
      return String.format(Locale.ROOT, "%.2f MiB", b / (1 << 20));
    }
    if (b >= 1 << 10) {
      return String.format(Locale.ROOT, "%.1f KiB", b / (1 << 10));
    }
    return String.format(Locale.ROOT, "%.0f B", b);
  }
}
