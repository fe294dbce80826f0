package io.cutpoint.server.analysis;

import java.util.List;

/**
 * Sizes of a cut.
 *
 * @param workers number of workers
 * @param channels number of channels
 * @param stateBytes total application state bytes
 * @param channelBytes total payload bytes recorded in transit
 * @param inFlightMessages total messages recorded in transit
 * @param perChannel every channel with its in-flight messages and bytes, sorted by channel
 */
public record CutStatistics(
    int workers,
    int channels,
    long stateBytes,
    long channelBytes,
    long inFlightMessages,
    List<CutModel.Channel> perChannel) {

  public CutStatistics {
    perChannel = List.copyOf(perChannel);
  }

  public static CutStatistics of(CutModel cut) {
    long state = 0;
    for (CutModel.Worker w : cut.workers().values()) {
      state = Math.addExact(state, w.stateBytes());
    }
    long bytes = 0;
    long messages = 0;
    for (CutModel.Channel c : cut.channels().values()) {
      bytes = Math.addExact(bytes, c.inFlightBytes());
      messages = Math.addExact(messages, c.inFlightMessages());
    }
    return new CutStatistics(
        cut.workers().size(),
        cut.channels().size(),
        state,
        bytes,
        messages,
        List.copyOf(cut.channels().values()));
  }
}
