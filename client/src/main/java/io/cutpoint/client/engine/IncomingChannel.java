package io.cutpoint.client.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * The receiving end of one channel {@code peer -> self}: how many data messages arrived on it, and
 * the recordings of snapshots currently recording it (usually none, so the hot path checks one
 * size).
 */
final class IncomingChannel {

  final String peer;
  long received;
  final List<RecordedChannel> open = new ArrayList<>(2);

  IncomingChannel(String peer) {
    this.peer = peer;
  }
}
