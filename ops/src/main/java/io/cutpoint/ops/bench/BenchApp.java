package io.cutpoint.ops.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The application of a benchmark worker: counts the messages it receives and holds an opaque state
 * of a chosen size, captured without copying and replaced on restore.
 */
final class BenchApp implements CountingApp {

  private final AtomicLong received = new AtomicLong();
  private volatile byte[] state;

  BenchApp(int stateBytes) {
    this.state = filled(stateBytes);
  }

  static byte[] filled(int bytes) {
    byte[] b = new byte[bytes];
    for (int i = 0; i < bytes; i += 4096) {
      b[i] = (byte) (i >>> 12); // touch every page so the state is really resident
    }
    return b;
  }

  /** Sets the state size for the next captures (call between snapshots). */
  void stateBytes(int bytes) {
    if (state.length != bytes) {
      state = filled(bytes);
    }
  }

  int stateBytes() {
    return state.length;
  }

  @Override
  public long received() {
    return received.get();
  }

  @Override
  public void onMessage(String from, long seq, byte[] payload) {
    received.lazySet(received.get() + 1); // only the event thread writes
  }

  @Override
  public byte[] capture() {
    return state;
  }

  @Override
  public void restore(byte[] restored) {
    state = restored;
  }
}
