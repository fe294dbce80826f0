package io.cutpoint.ops.bench;

import java.nio.ByteBuffer;

/**
 * A keyed stateful worker of the dataflow workload: a running sum per key. A message is a key (int)
 * and a value (long); the state is every sum, 8 bytes each.
 */
final class KeyedSum implements CountingApp {

  static final int KEYS = 4096;

  private final long[] sums = new long[KEYS];
  private volatile long received;

  static byte[] message(int key, long value) {
    return ByteBuffer.allocate(12).putInt(key).putLong(value).array();
  }

  @Override
  public void onMessage(String from, long seq, byte[] payload) {
    received++; // only the event thread writes
    if (payload.length < 12) {
      return; // the cluster's connection probe
    }
    ByteBuffer b = ByteBuffer.wrap(payload);
    int key = b.getInt();
    sums[Math.floorMod(key, KEYS)] += b.getLong();
  }

  @Override
  public long received() {
    return received;
  }

  @Override
  public byte[] capture() {
    ByteBuffer b = ByteBuffer.allocate(KEYS * 8);
    for (long s : sums) {
      b.putLong(s);
    }
    return b.array();
  }

  @Override
  public void restore(byte[] state) {
    ByteBuffer b = ByteBuffer.wrap(state);
    for (int i = 0; i < KEYS && b.remaining() >= 8; i++) {
      sums[i] = b.getLong();
    }
  }
}
