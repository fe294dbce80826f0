package io.cutpoint.ops.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Item 6: P sources each sending to all P keyed running-sum workers (P x P channels), as fast as
 * the channels accept, with snapshots every interval and without, in alternating windows.
 */
final class DataflowPhase {

  /** One P. */
  record Row(int p, Alternating.Result run) {}

  private DataflowPhase() {}

  static List<Row> run(BenchPlan plan, Consumer<String> progress) {
    List<Row> rows = new ArrayList<>();
    for (int p : plan.dataflow()) {
      progress.accept("dataflow: P = " + p);
      Layout layout = Layout.dataflow(p);
      try (BenchCluster c =
              BenchCluster.start(
                  layout, plan, id -> id.startsWith("k") ? new KeyedSum() : new BenchApp(64));
          Traffic t = Traffic.saturate(routes(c, p), OverheadPhase.SOURCE_THREADS)) {
        rows.add(new Row(p, Alternating.run(c, plan)));
      }
    }
    return rows;
  }

  /** Source s_i sends to keyed worker k_j the keys congruent to j - 1 modulo P. */
  private static List<Traffic.Route> routes(BenchCluster c, int p) {
    List<Traffic.Route> routes = new ArrayList<>();
    int keysPerWorker = KeyedSum.KEYS / p;
    for (int i = 1; i <= p; i++) {
      for (int j = 1; j <= p; j++) {
        int owner = j - 1;
        routes.add(
            new Traffic.Route(
                c.node("s" + i).worker(),
                "k" + j,
                k -> KeyedSum.message((int) (k % keysPerWorker) * p + owner, k)));
      }
    }
    return routes;
  }
}
