package io.cutpoint.ops.bench;

import io.cutpoint.client.chunks.KeyedState;
import io.cutpoint.client.engine.CapturedState;
import java.util.List;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A benchmark worker whose state is a table of fixed-size random values under ordered keys, handed
 * over as a {@link KeyedState}: what an application that changes little of a large state between
 * snapshots is advised to do ({@code worker-sdk.md}). An edit replaces the values of a run of
 * neighbouring keys with new arrays, in a copy of the table, as {@link StateEdit}'s one run does
 * for an array.
 */
final class KeyedBenchApp extends MessageCounter {

  /** Bytes of each value. */
  static final int VALUE_BYTES = 1024;

  private volatile SortedMap<String, byte[]> table;

  /** About {@code stateBytes} of values (at least one entry), random from {@code seed}. */
  KeyedBenchApp(int stateBytes, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    SortedMap<String, byte[]> t = new TreeMap<>();
    int entries = Math.max(1, stateBytes / VALUE_BYTES);
    for (int i = 0; i < entries; i++) {
      t.put(key(i), value(random));
    }
    this.table = t;
  }

  private static String key(int i) {
    return String.format(java.util.Locale.ROOT, "k%08d", i);
  }

  private static byte[] value(SplittableRandom random) {
    byte[] v = new byte[VALUE_BYTES];
    random.nextBytes(v);
    return v;
  }

  /**
   * A copy of the table with the values of {@code fraction} of its entries (at least one), in one
   * run of neighbouring keys starting at random, replaced by new random arrays. Untimed; hand the
   * result to {@link #replaceTable} on the worker's event thread.
   */
  SortedMap<String, byte[]> edited(double fraction, SplittableRandom random) {
    SortedMap<String, byte[]> next = new TreeMap<>(table);
    int n = next.size();
    int count = Math.max(1, Math.min(n, (int) Math.round(n * fraction)));
    int start = random.nextInt(n - count + 1);
    for (int i = start; i < start + count; i++) {
      next.put(key(i), value(random));
    }
    return next;
  }

  /** Makes {@code next} the table of the next captures; on the worker's event thread. */
  void replaceTable(SortedMap<String, byte[]> next) {
    table = next;
  }

  @Override
  public CapturedState captureState(long snapshotId) {
    return CapturedState.keyed(KeyedState.of(table), CapturedState.Activity.UNSPECIFIED, List.of());
  }

  @Override
  public byte[] capture() {
    return KeyedState.of(table).toBytes();
  }

  @Override
  public void restore(byte[] restored) {
    table = new TreeMap<>(KeyedState.decode(restored));
  }
}
