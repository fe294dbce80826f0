package io.cutpoint.server.analysis;

import io.cutpoint.cut.ChannelId;
import java.util.ArrayList;
import java.util.List;

/**
 * Termination of a cut: the computation has terminated when every worker declared itself passive
 * (it only acts when a message arrives) and no message is in transit on any channel — then no
 * worker will ever act again. A worker that did not declare its activity is counted as active:
 * silence is not evidence of being idle.
 */
public final class TerminationDetector {

  private TerminationDetector() {}

  public static TerminationVerdict detect(CutModel cut) {
    List<String> active = new ArrayList<>();
    for (CutModel.Worker w : cut.workers().values()) {
      if (w.activity() != CutModel.Activity.PASSIVE) {
        active.add(w.id());
      }
    }
    List<ChannelId> nonEmpty = new ArrayList<>();
    for (CutModel.Channel c : cut.channels().values()) {
      if (c.inFlightMessages() > 0) {
        nonEmpty.add(c.channel());
      }
    }
    return new TerminationVerdict(active, nonEmpty);
  }
}
