package io.cutpoint.ops.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the benchmark applications share: they count the messages they receive and do nothing else
 * with them. Only the worker's event thread calls {@link #onMessage}; any thread reads the count.
 */
abstract class MessageCounter implements CountingApp {

  private final AtomicLong received = new AtomicLong();

  @Override
  public final long received() {
    return received.get();
  }

  @Override
  public final void onMessage(String from, long seq, byte[] payload) {
    received.lazySet(received.get() + 1); // only the event thread writes
  }
}
