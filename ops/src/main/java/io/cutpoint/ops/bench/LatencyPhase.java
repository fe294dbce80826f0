package io.cutpoint.ops.bench;

import io.cutpoint.api.v1.PhaseTimings;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Item 1: trigger-to-committed snapshot latency (and its phases) for every cluster size, ring and
 * full mesh, small and large states, idle and under a steady message rate.
 */
final class LatencyPhase {

  /** One configuration's measurements. */
  record Row(int workers, String layout, int channels, int stateBytes, boolean traffic, Samples total,
      Samples markers, Samples upload, Samples commit, int failed) {}

  private static final int WARM_UP = 5;
  /** Time budget of one configuration's measured snapshots (at least one is always taken). */
  private static final long BUDGET_NANOS = 8_000_000_000L;
  private static final byte[] PAYLOAD = new byte[64];

  private LatencyPhase() {}

  static List<Row> run(BenchPlan plan, Consumer<String> progress) {
    List<Row> rows = new ArrayList<>();
    boolean first = true;
    for (int n : plan.workers()) {
      for (Layout layout : List.of(Layout.ring(n), Layout.mesh(n))) {
        progress.accept("snapshot latency: " + n + " workers, " + layout.name());
        try (BenchCluster c = BenchCluster.start(layout, plan, id -> new BenchApp(plan.smallStateBytes()))) {
          if (first) {
            measure(c, 0, plan.samples(), false); // the JIT's first look at the snapshot path
            first = false;
          }
          for (int state : List.of(plan.smallStateBytes(), plan.largeStateBytes())) {
            c.nodes().forEach(node -> ((BenchApp) node.app()).stateBytes(state));
            boolean large = state == plan.largeStateBytes();
            for (boolean traffic : List.of(false, true)) {
              Traffic t = traffic ? Traffic.steady(routes(c), plan.steadyRate()) : null;
              try {
                rows.add(measure(c, state, large ? plan.largeSamples() : plan.samples(), traffic,
                    large ? 1 : WARM_UP));
              } finally {
                if (t != null) {
                  t.close();
                }
              }
            }
          }
        }
      }
    }
    return rows;
  }

  static List<Traffic.Route> routes(BenchCluster c) {
    List<Traffic.Route> routes = new ArrayList<>();
    for (BenchCluster.Node node : c.nodes()) {
      for (String to : c.layout().outgoing().get(node.id())) {
        routes.add(Traffic.Route.fixed(node.worker(), to, PAYLOAD));
      }
    }
    return routes;
  }

  private static Row measure(BenchCluster c, int state, int samples, boolean traffic) {
    return measure(c, state, samples, traffic, 0);
  }

  private static Row measure(BenchCluster c, int state, int samples, boolean traffic, int warmUp) {
    Samples total = new Samples();
    Samples markers = new Samples();
    Samples upload = new Samples();
    Samples commit = new Samples();
    int failed = 0;
    long deadline = Long.MAX_VALUE;
    for (int i = 0; i < warmUp + samples && System.nanoTime() < deadline; i++) {
      BenchCoordinator.Taken t = c.coordinator().snapshot();
      if (i < warmUp) {
        continue;
      }
      if (i == warmUp) {
        deadline = System.nanoTime() + BUDGET_NANOS;
      }
      if (!t.complete()) {
        failed++;
        continue;
      }
      PhaseTimings p = t.manifest().getTimings();
      total.add(t.clientMillis());
      markers.add(p.getMarkerPropagationMicros() / 1000.0);
      upload.add(p.getUploadMicros() / 1000.0);
      commit.add(p.getCommitMicros() / 1000.0);
      Pause.millis(2);
    }
    return new Row(c.layout().ids().size(), c.layout().name(), c.layout().channels(), state, traffic,
        total, markers, upload, commit, failed);
  }
}
