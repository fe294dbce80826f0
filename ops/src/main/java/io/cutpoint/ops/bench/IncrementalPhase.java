package io.cutpoint.ops.bench;

import io.cutpoint.ops.admin.SnapshotTrace;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Incremental snapshots: workers upload their states as content-defined chunks and only those the
 * store lacks. For each {@link Shape} (a cluster and a per-worker state), each fraction and each
 * {@link StateEdit.Pattern}, idle snapshots of a cluster whose workers change that fraction of
 * their states between two snapshots (on a copy, outside the timed interval); per snapshot, the
 * state bytes all workers uploaded, from the coordinator's {@code cutpoint.state.uploaded} counter.
 * Next to them, in the same run: the same shape with content chunks off (every state byte is
 * uploaded), a 1 KiB state on the first shape's cluster, the first shape handed over as sorted
 * entries ({@link Keyed}), and the first shape's state on a 2-worker ring whose coordinator keeps
 * its snapshots in the object store ({@link Shared}).
 *
 * <p>States are random bytes (content-defined chunking finds no cut points in zeros), a different
 * seed per worker, so no worker's chunks stand in for another's. The chunked cluster takes {@link
 * #WARM_UP} unmeasured snapshots first: after them the store holds the state, and every measured
 * snapshot follows one edit. Each cluster is closed, and its states dropped, before the next
 * starts.
 */
final class IncrementalPhase {

  /**
   * A cluster of {@code workers} in {@code layout} ({@code mesh} or {@code ring}) with {@code
   * stateBytes} per worker; {@code samples} snapshots are measured per row and of the full upload.
   * With {@code onlyFraction} > 0 it measures only that fraction changed in one run (its target's
   * row), not every fraction and pattern of the plan.
   */
  record Shape(int workers, String layout, int stateBytes, int samples, double onlyFraction) {

    Shape(int workers, String layout, int stateBytes, int samples) {
      this(workers, layout, stateBytes, samples, 0);
    }

    /** The fractions measured on this shape, of the plan's {@code fractions}. */
    List<Double> fractions(List<Double> fractions) {
      return onlyFraction > 0 ? List.of(onlyFraction) : fractions;
    }

    /** The patterns measured on this shape. */
    List<StateEdit.Pattern> patterns() {
      return onlyFraction > 0
          ? List.of(StateEdit.Pattern.ONE_RUN)
          : List.of(StateEdit.Pattern.values());
    }

    Layout toLayout() {
      return layout.equals("mesh") ? Layout.mesh(workers) : Layout.ring(workers);
    }

    long totalBytes() {
      return (long) workers * stateBytes;
    }

    /** As {@code 16 MiB x 8 mesh}. */
    String label() {
      return BenchReport.bytes(stateBytes) + " x " + workers + " " + layout;
    }

    Shape withStateBytes(int bytes) {
      return new Shape(workers, layout, bytes, samples, onlyFraction);
    }

    Shape withSamples(int n) {
      return new Shape(workers, layout, stateBytes, n, onlyFraction);
    }
  }

  /**
   * What the phase measures: the shapes (the first one's cluster also measures the plan's small
   * state, {@link BenchPlan#samples()} times), the fractions changed between snapshots, and the
   * time budget of one row's measured snapshots (at least one is always taken).
   */
  record Plan(List<Shape> shapes, List<Double> fractions, long budgetMillis) {

    /** The fractions of the full and of the quick run. */
    static final List<Double> FRACTIONS = List.of(0.001, 0.01, 0.1);

    /** 16 MiB on an 8-worker mesh, 256 MiB on a 2-worker ring. */
    static Plan standard() {
      return new Plan(
          List.of(new Shape(8, "mesh", 16 << 20, 10), new Shape(2, "ring", 256 << 20, 4)),
          FRACTIONS,
          8_000);
    }

    /**
     * The same shapes and fractions, fewer samples and a shorter budget; the 256 MiB ring measures
     * only its target's row (0.1% in one run), which keeps the quick run within its time.
     */
    static Plan quick() {
      return new Plan(
          List.of(
              new Shape(8, "mesh", 16 << 20, 3),
              new Shape(2, "ring", 256 << 20, 2, IncrementalReport.LARGE_TARGET_FRACTION)),
          FRACTIONS,
          2_500);
    }

    /** The plan with each shape's state ({@code kib}, in shape order) and samples (null: keep). */
    Plan with(List<Integer> kib, Integer samples) {
      List<Shape> next = new ArrayList<>();
      for (int i = 0; i < shapes.size(); i++) {
        Shape s = shapes.get(i);
        if (kib != null && i < kib.size()) {
          s = s.withStateBytes(kib.get(i) << 10);
        }
        if (samples != null) {
          s = s.withSamples(samples);
        }
        next.add(s);
      }
      return new Plan(List.copyOf(next), fractions, budgetMillis);
    }
  }

  /**
   * What the snapshots of one configuration gave: the client's trigger-to-committed latencies, the
   * state bytes all workers uploaded per snapshot, the coordinator's upload and commit phases (ms),
   * each step of the critical path (ms, as {@link LatencyPhase.Row#criticalPath()}), and the failed
   * snapshots with the first one's reason. Filled by one thread, then read.
   */
  static final class Measured {
    private final Samples latency = new Samples();
    private final Samples uploaded = new Samples();
    private final Samples upload = new Samples();
    private final Samples commit = new Samples();
    private final Map<String, Samples> criticalPath = new LinkedHashMap<>();
    private final Map<String, Samples> toUpload = new LinkedHashMap<>();
    private int failed;
    private String failure;

    Samples latency() {
      return latency;
    }

    Samples uploaded() {
      return uploaded;
    }

    Samples upload() {
      return upload;
    }

    Samples commit() {
      return commit;
    }

    Map<String, Samples> criticalPath() {
      return criticalPath;
    }

    /** The critical path's "to upload" step, cut as {@link SnapshotTrace#toUpload()} cuts it. */
    Map<String, Samples> toUpload() {
      return toUpload;
    }

    int failed() {
      return failed;
    }

    /** Why the first failed snapshot failed, or null. */
    String failure() {
      return failure;
    }

    private void step(String name, double millis) {
      criticalPath.computeIfAbsent(name, k -> new Samples()).add(millis);
    }

    private void toUploadStep(String name, double millis) {
      toUpload.computeIfAbsent(name, k -> new Samples()).add(millis);
    }

    private void failed(String reason) {
      failed++;
      if (failure == null) {
        failure = reason;
      }
    }
  }

  /**
   * One shape's full uploads (content chunks off); {@code skipped} says why the shape was not
   * measured (else null).
   */
  record Full(Shape shape, Measured measured, String skipped) {
    double uploadedFraction() {
      return measured.uploaded().p50() / shape.totalBytes();
    }
  }

  /** One shape, fraction and pattern, next to the p50 of the shape's full uploads. */
  record Row(
      Shape shape,
      double fraction,
      StateEdit.Pattern pattern,
      int changedBytes,
      Measured measured,
      double fullP50Millis) {
    double uploadedFraction() {
      return measured.uploaded().p50() / shape.totalBytes();
    }

    double ratioToFull() {
      return measured.latency().p50() / fullP50Millis;
    }
  }

  /**
   * The first shape's state on a 2-worker ring over the object store (S3Proxy and ZooKeeper in this
   * JVM), {@code fraction} of it changed in one run between snapshots; null if not measured.
   */
  record Shared(Shape shape, double fraction, Measured measured) {
    double uploadedFraction() {
      return measured.uploaded().p50() / shape.totalBytes();
    }
  }

  /**
   * The first shape with each worker's state a table of {@link KeyedBenchApp#VALUE_BYTES} values
   * handed over as a {@code KeyedState}, {@code fraction} of its entries replaced in one run of
   * neighbouring keys between snapshots; null if not measured.
   */
  record Keyed(Shape shape, double fraction, Measured measured) {
    double uploadedFraction() {
      return measured.uploaded().p50() / shape.totalBytes();
    }
  }

  /**
   * The rows in run order, each shape's full uploads, the small state's snapshots on the first
   * shape's cluster ({@code smallShape}; null if that shape was skipped), the first shape as
   * entries and the object store's row (each null if not measured), and the peak heap.
   */
  record Result(
      List<Row> rows,
      List<Full> full,
      Shape smallShape,
      Measured small,
      Keyed keyed,
      Shared shared,
      long peakHeapBytes) {

    /** The row of {@code shape}, {@code fraction} and {@code pattern}, if measured. */
    Optional<Row> row(Shape shape, double fraction, StateEdit.Pattern pattern) {
      return rows.stream()
          .filter(
              r -> r.shape().equals(shape) && r.fraction() == fraction && r.pattern() == pattern)
          .findFirst();
    }
  }

  /**
   * Unmeasured snapshots of the chunked cluster once its large states are in: the first uploads
   * them whole; each of the others follows a small edit and finds most chunks in the store, and the
   * last one's commit lets retention drop the first snapshot.
   */
  static final int WARM_UP = 3;

  /** Unmeasured snapshots before the full uploads. */
  private static final int FULL_WARM_UP = 1;

  /** Unmeasured snapshots before the small state's. */
  private static final int SMALL_WARM_UP = 5;

  /** How long a snapshot's pieces may take to show in the counters after its reply. */
  private static final long COUNTED_NANOS = 10_000_000_000L;

  /** Seeds of the workers' states and edits (the ASCII bytes of "cdc-edit"). */
  private static final long SEED = 0x6364632d65646974L;

  private IncrementalPhase() {}

  static Result run(BenchPlan plan, Consumer<String> progress) {
    Plan incremental = plan.incremental();
    HeapPeak.reset();
    List<Row> rows = new ArrayList<>();
    List<Full> full = new ArrayList<>();
    Measured small = new Measured();
    Shape smallShape = null;
    for (int i = 0; i < incremental.shapes().size(); i++) {
      Shape shape = incremental.shapes().get(i);
      // every worker's state, its edited copy, and the array its last upload may still hold
      long needed = 3 * shape.totalBytes() + (256L << 20);
      if (needed > HeapPeak.maxHeapBytes()) {
        full.add(
            new Full(
                shape,
                new Measured(),
                "needs about "
                    + (needed >> 20)
                    + " MiB of heap, max is "
                    + (HeapPeak.maxHeapBytes() >> 20)
                    + " MiB (run with a larger -Xmx)"));
        continue;
      }
      boolean first = i == 0;
      if (first) {
        smallShape = shape.withStateBytes(plan.smallStateBytes()).withSamples(plan.samples());
      }
      Map<String, byte[]> states = new LinkedHashMap<>();
      List<String> ids = shape.toLayout().ids();
      for (int w = 0; w < ids.size(); w++) {
        states.put(ids.get(w), StateEdit.random(shape.stateBytes(), SEED + 1000L * i + w));
      }
      progress.accept("incremental: " + shape.label() + ", full uploads (content chunks off)");
      Full f = new Full(shape, full(plan, shape, states, incremental.budgetMillis()), null);
      full.add(f);
      System.gc();
      progress.accept(
          "incremental: "
              + shape.label()
              + (first ? ", " + BenchReport.bytes(plan.smallStateBytes()) + " first" : "")
              + ", content chunks, "
              + shape.fractions(incremental.fractions()).size()
              + " fractions x "
              + shape.patterns().size()
              + " patterns");
      rows.addAll(
          chunked(
              plan,
              shape,
              states,
              incremental,
              f.measured().latency().p50(),
              first ? small : null,
              SEED ^ (1000L * i)));
      System.gc(); // the cluster held the states: gone before the next shape's
    }
    Shared shared = null;
    Keyed keyed = null;
    if (smallShape != null) {
      Shape first = incremental.shapes().get(0);
      progress.accept(
          "incremental: "
              + first.label()
              + ", content chunks, as entries of "
              + BenchReport.bytes(KeyedBenchApp.VALUE_BYTES));
      keyed =
          new Keyed(
              first,
              IncrementalReport.TARGET_FRACTION,
              asEntries(plan, first, incremental, IncrementalReport.TARGET_FRACTION));
      System.gc();
      Shape shape = new Shape(2, "ring", first.stateBytes(), first.samples());
      progress.accept("incremental: " + shape.label() + ", content chunks, on the object store");
      shared =
          new Shared(
              shape, IncrementalReport.TARGET_FRACTION, onObjectStore(plan, shape, incremental));
      System.gc();
    }
    return new Result(rows, full, smallShape, small, keyed, shared, HeapPeak.peakBytes());
  }

  /**
   * The shape with each worker's state a table handed over as entries ({@link KeyedBenchApp}),
   * warmed up as {@link #chunked}, then {@code fraction} of each table's entries replaced in one
   * run before each measured snapshot.
   */
  private static Measured asEntries(
      BenchPlan plan, Shape shape, Plan incremental, double fraction) {
    return edited(
        plan,
        shape,
        incremental,
        BenchCoordinator.ROCKSDB,
        id -> new KeyedBenchApp(shape.stateBytes(), SEED + id.hashCode()),
        (c, edits) -> editEntries(c, edits, fraction));
  }

  /** Replaces {@code fraction} of every worker's entries in one run; untimed. */
  private static void editEntries(
      BenchCluster c, Map<String, SplittableRandom> random, double fraction) {
    for (BenchCluster.Node n : c.nodes()) {
      KeyedBenchApp app = (KeyedBenchApp) n.app();
      var next = app.edited(fraction, random.get(n.id()));
      onEventThread(n, () -> app.replaceTable(next));
    }
  }

  /**
   * The shape on a coordinator over the object store, warmed up as {@link #chunked}, then {@link
   * IncrementalReport#TARGET_FRACTION} of each state changed in one run before each measured
   * snapshot.
   */
  private static Measured onObjectStore(BenchPlan plan, Shape shape, Plan incremental) {
    return edited(
        plan,
        shape,
        incremental,
        BenchCoordinator.S3,
        id -> new BenchApp(StateEdit.random(shape.stateBytes(), SEED + id.hashCode())),
        (c, edits) -> edit(c, edits, IncrementalReport.TARGET_FRACTION, StateEdit.Pattern.ONE_RUN));
  }

  /**
   * The shape's cluster on {@code store} with the applications of {@code apps}: {@link #WARM_UP}
   * snapshots, each but the first after an {@code edit}, then the measured ones, each after one.
   */
  private static Measured edited(
      BenchPlan plan,
      Shape shape,
      Plan incremental,
      String store,
      java.util.function.Function<String, CountingApp> apps,
      java.util.function.BiConsumer<BenchCluster, Map<String, SplittableRandom>> edit) {
    Measured m = new Measured();
    Map<String, SplittableRandom> edits = new LinkedHashMap<>();
    try (BenchCluster c = BenchCluster.start(shape.toLayout(), plan, apps, store)) {
      for (BenchCluster.Node n : c.nodes()) {
        edits.put(n.id(), new SplittableRandom(SEED ^ n.id().hashCode()));
      }
      for (int i = 0; i < WARM_UP; i++) {
        if (i > 0) {
          edit.accept(c, edits);
        }
        snapshot(c);
      }
      long deadline = System.nanoTime() + incremental.budgetMillis() * 1_000_000;
      for (int i = 0; i < shape.samples() && (i == 0 || System.nanoTime() < deadline); i++) {
        edit.accept(c, edits);
        measure(c, shape.totalBytes(), m);
      }
    }
    return m;
  }

  /** The shape with content chunks off: every state byte goes up in every snapshot. */
  private static Measured full(
      BenchPlan plan, Shape shape, Map<String, byte[]> states, long budgetMillis) {
    Measured m = new Measured();
    try (BenchCluster c =
        BenchCluster.start(
            shape.toLayout(),
            plan,
            id -> new BenchApp(states.get(id)),
            BenchCoordinator.ROCKSDB,
            false)) {
      for (int i = 0; i < FULL_WARM_UP; i++) {
        snapshot(c);
      }
      long deadline = System.nanoTime() + budgetMillis * 1_000_000;
      for (int i = 0; i < shape.samples() && (i == 0 || System.nanoTime() < deadline); i++) {
        measure(c, shape.totalBytes(), m);
      }
    }
    return m;
  }

  /**
   * The shape with content chunks on: the small state first if {@code small} is not null, then the
   * shape's states (taken out of {@code states}), warmed up, then every fraction and pattern.
   */
  private static List<Row> chunked(
      BenchPlan plan,
      Shape shape,
      Map<String, byte[]> states,
      Plan incremental,
      double fullP50,
      Measured small,
      long seed) {
    List<Row> rows = new ArrayList<>();
    long budget = incremental.budgetMillis() * 1_000_000;
    try (BenchCluster c =
        BenchCluster.start(
            shape.toLayout(),
            plan,
            id ->
                small == null
                    ? new BenchApp(states.get(id))
                    : new BenchApp(plan.smallStateBytes()))) {
      if (small != null) {
        for (int i = 0; i < SMALL_WARM_UP; i++) {
          snapshot(c);
        }
        long smallBytes = (long) shape.workers() * plan.smallStateBytes();
        long deadline = System.nanoTime() + Math.max(budget, 8_000_000_000L);
        for (int i = 0; i < plan.samples() && (i == 0 || System.nanoTime() < deadline); i++) {
          measure(c, smallBytes, small);
        }
        for (BenchCluster.Node n : c.nodes()) {
          replace(n, states.get(n.id()));
        }
      }
      states.clear(); // the workers hold them now, and drop them at their first edit
      Map<String, SplittableRandom> edits = new LinkedHashMap<>();
      for (BenchCluster.Node n : c.nodes()) {
        edits.put(n.id(), new SplittableRandom(seed + n.id().hashCode()));
      }
      for (int i = 0; i < WARM_UP; i++) {
        if (i > 0) {
          edit(c, edits, incremental.fractions().get(0), StateEdit.Pattern.ONE_RUN);
        }
        snapshot(c);
      }
      for (double fraction : shape.fractions(incremental.fractions())) {
        for (StateEdit.Pattern pattern : shape.patterns()) {
          Measured m = new Measured();
          long deadline = System.nanoTime() + budget;
          for (int i = 0; i < shape.samples() && (i == 0 || System.nanoTime() < deadline); i++) {
            edit(c, edits, fraction, pattern);
            measure(c, shape.totalBytes(), m);
          }
          rows.add(
              new Row(
                  shape,
                  fraction,
                  pattern,
                  StateEdit.changedBytes(shape.stateBytes(), fraction, pattern),
                  m,
                  fullP50));
        }
      }
    }
    return rows;
  }

  /**
   * Changes {@code fraction} of every worker's state in {@code pattern}: a copy of the array its
   * last capture returned, with the edit, becomes the state of its next capture. Untimed.
   */
  private static void edit(
      BenchCluster c,
      Map<String, SplittableRandom> random,
      double fraction,
      StateEdit.Pattern pattern) {
    for (BenchCluster.Node n : c.nodes()) {
      byte[] now = ((BenchApp) n.app()).state();
      replace(n, StateEdit.edited(now, fraction, pattern, random.get(n.id())));
    }
  }

  /**
   * Hands {@code next} to the worker's application on the worker's event thread, where captures
   * run, and waits until it is there.
   */
  static void replace(BenchCluster.Node node, byte[] next) {
    BenchApp app = (BenchApp) node.app();
    onEventThread(node, () -> app.replaceState(next));
  }

  /** Runs {@code change} on the worker's event thread, where captures run, and waits for it. */
  private static void onEventThread(BenchCluster.Node node, Runnable change) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    node.worker()
        .execute(
            () -> {
              change.run();
              done.complete(null);
            });
    try {
      done.get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while changing a state", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("worker " + node.id() + " did not take its new state", e);
    }
  }

  /** An unmeasured snapshot. */
  private static void snapshot(BenchCluster c) {
    try {
      c.coordinator().snapshot();
    } catch (StatusRuntimeException e) { // refused, e.g. a session reconnecting on a busy machine
      Pause.millis(10);
    }
  }

  /**
   * A measured snapshot of a cluster whose states add up to {@code stateBytes}: its latency and
   * phases, and the state bytes it uploaded, from the counters before and after (once its pieces
   * show in them); a failure otherwise.
   */
  private static void measure(BenchCluster c, long stateBytes, Measured m) {
    BenchCoordinator.StateBytes before = c.coordinator().stateBytes();
    BenchCoordinator.Taken t;
    try {
      t = c.coordinator().snapshot();
    } catch (StatusRuntimeException e) { // refused, e.g. a session reconnecting on a busy machine
      m.failed("the trigger failed: " + e.getStatus());
      Pause.millis(10);
      return;
    }
    if (!t.complete()) {
      m.failed(t.manifest().getStatus() + ": " + t.manifest().getReason());
      return;
    }
    double client = t.clientMillis();
    m.latency().add(client);
    t.steps(m::step).ifPresent(trace -> trace.toUpload().forEach(m::toUploadStep));
    m.upload().add(t.manifest().getTimings().getUploadMicros() / 1000.0);
    m.commit().add(t.manifest().getTimings().getCommitMicros() / 1000.0);
    BenchCoordinator.StateBytes after = c.coordinator().stateBytes();
    long deadline = System.nanoTime() + COUNTED_NANOS;
    while (after.delivered() - before.delivered() < stateBytes && System.nanoTime() < deadline) {
      Pause.millis(1);
      after = c.coordinator().stateBytes();
    }
    m.uploaded().add(after.uploaded() - before.uploaded());
  }
}
