package io.cutpoint.server.analysis;

import io.cutpoint.cut.ChannelId;
import java.util.List;

/**
 * The outcome of {@link TerminationDetector}.
 *
 * @param activeWorkers workers not declared passive, sorted
 * @param nonEmptyChannels channels with at least one message recorded in transit, sorted
 */
public record TerminationVerdict(List<String> activeWorkers, List<ChannelId> nonEmptyChannels) {

  public TerminationVerdict {
    activeWorkers = List.copyOf(activeWorkers);
    nonEmptyChannels = List.copyOf(nonEmptyChannels);
  }

  /** True when every worker is passive and every channel empty. */
  public boolean terminated() {
    return activeWorkers.isEmpty() && nonEmptyChannels.isEmpty();
  }
}
