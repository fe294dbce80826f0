package io.cutpoint.playground;

import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.playground.sim.History;
import io.cutpoint.playground.sim.Money;
import io.cutpoint.playground.sim.Simulation;
import io.cutpoint.playground.sim.SnapshotRun;
import io.cutpoint.playground.sim.Transit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The simulation as the page draws it, one JSON object per frame. */
final class StateJson {

  /** Snapshots listed (the most recent). */
  private static final int LISTED_RUNS = 40;

  private StateJson() {}

  static String of(Simulation sim, long windowMs) {
    long since = sim.now() - windowMs;
    JsonWriter j = new JsonWriter().open('{');
    j.key("now").value(sim.now()).key("fifo").value(sim.fifo()).key("rate").value(sim.rate());
    j.key("money").value(sim.money()).key("moneyNow").value(sim.moneyNow());
    j.key("consistent")
        .value(sim.consistentCount())
        .key("inconsistent")
        .value(sim.inconsistentCount());
    j.key("failed").value(sim.failedCount()).key("error").value(sim.lastError());
    j.key("processes").open('[');
    for (String p : sim.processes()) {
      j.open('{')
          .key("id")
          .value(p)
          .key("balance")
          .value(sim.balance(p))
          .key("recording")
          .value(sim.recording(p))
          .close('}');
    }
    j.close(']').key("channels").open('[');
    for (Map.Entry<ChannelId, Long> c : sim.delays().entrySet()) {
      j.open('{')
          .key("from")
          .value(c.getKey().from())
          .key("to")
          .value(c.getKey().to())
          .key("delay")
          .value(c.getValue())
          .close('}');
    }
    j.close(']').key("transit").open('[');
    for (Transit t : sim.inTransit()) {
      transit(j, t, -1);
    }
    j.close(']').key("arrivals").open('[');
    for (History.Arrival a : sim.history().arrivals()) {
      if (a.at() >= since || a.transit().sentAt() >= since) {
        transit(j, a.transit(), a.at());
      }
    }
    j.close(']').key("captures").open('[');
    for (History.Capture c : sim.history().captures()) {
      if (c.at() >= since) {
        j.open('{')
            .key("p")
            .value(c.process())
            .key("snap")
            .value(c.snapshotId())
            .key("at")
            .value(c.at())
            .close('}');
      }
    }
    j.close(']').key("rollbacks").open('[');
    for (History.Rollback r : sim.history().rollbacks()) {
      j.open('{').key("snap").value(r.snapshotId()).key("at").value(r.at()).close('}');
    }
    j.close(']').key("snapshots").open('[');
    List<SnapshotRun> runs = new ArrayList<>();
    for (SnapshotRun r : sim.runs()) {
      runs.add(r);
    }
    for (int i = runs.size() - 1; i >= Math.max(0, runs.size() - LISTED_RUNS); i--) {
      run(j, runs.get(i));
    }
    return j.close(']').close('}').toString();
  }

  private static void transit(JsonWriter j, Transit t, long arrived) {
    j.open('{')
        .key("from")
        .value(t.from())
        .key("to")
        .value(t.to())
        .key("marker")
        .value(t.marker())
        .key("seq")
        .value(t.seq())
        .key("amount")
        .value(t.amount())
        .key("snap")
        .value(t.snapshotId())
        .key("sent")
        .value(t.sentAt())
        .key("arrive")
        .value(arrived >= 0 ? arrived : t.arriveAt())
        .key("replay")
        .value(t.replay())
        .close('}');
  }

  private static void run(JsonWriter j, SnapshotRun r) {
    j.open('{')
        .key("id")
        .value(r.id)
        .key("status")
        .value(r.status().name())
        .key("started")
        .value(r.startedAt)
        .key("finished")
        .value(r.finishedAt())
        .key("moneyInCut")
        .value(r.moneyInCut())
        .key("initiators")
        .open('[');
    for (String p : r.initiators) {
      j.value(p);
    }
    j.close(']').key("violations").open('[');
    for (String v : r.violations()) {
      j.value(v);
    }
    j.close(']').key("pieces").open('[');
    for (CompletedLocalSnapshot piece : r.pieces().values()) {
      j.open('{')
          .key("p")
          .value(piece.cut().workerId())
          .key("balance")
          .value(Money.decode(piece.state().state()))
          .key("first")
          .value(piece.cut().firstMarkerFrom() == null ? "" : piece.cut().firstMarkerFrom())
          .key("recorded")
          .open('[');
      piece
          .cut()
          .recordings()
          .forEach(
              (from, msgs) -> {
                for (InTransitMessage m : msgs) {
                  j.open('{')
                      .key("from")
                      .value(from)
                      .key("seq")
                      .value(m.seq())
                      .key("amount")
                      .value(Money.decode(m.payload()))
                      .close('}');
                }
              });
      j.close(']').close('}');
    }
    j.close(']').close('}');
  }
}
