package io.cutpoint.ops.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * What a benchmark worker's state turns into between two snapshots: a copy of it with a fraction of
 * its bytes overwritten by fresh random bytes, in one of two {@link Pattern patterns}. The array a
 * capture handed to the SDK is never written (the SDK uploads it without copying); the copy is the
 * next capture's. Pure logic, deterministic for a given {@link SplittableRandom}.
 */
final class StateEdit {

  /** Size and alignment of a record of the {@link Pattern#SCATTERED} pattern: 4 KiB. */
  static final int RECORD_BYTES = 4096;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Where the changed bytes lie. */
  enum Pattern {
    /** One contiguous run at a random offset. */
    ONE_RUN("one run"),
    /**
     * Records of {@link #RECORD_BYTES} at distinct random offsets aligned to {@link #RECORD_BYTES}.
     */
    SCATTERED("scattered");

    private final String label;

    Pattern(String label) {
      this.label = label;
    }

    /** The name in reports: {@code one run}, {@code scattered}. */
    String label() {
      return label;
    }
  }

  private StateEdit() {}

  /**
   * {@code bytes} random bytes from {@code seed}. Content-defined chunking finds its cut points in
   * them as in real data; a state of zeros has none (it comes out in maximal chunks, all alike).
   */
  static byte[] random(int bytes, long seed) {
    byte[] b = new byte[bytes];
    fill(b, 0, bytes, new SplittableRandom(seed));
    return b;
  }

  /**
   * How many bytes an edit of {@code fraction} of a state of {@code stateBytes} changes: the
   * nearest whole number, at least 1; in the scattered pattern, whole records, at least one and at
   * most as many as the state holds.
   */
  static int changedBytes(int stateBytes, double fraction, Pattern pattern) {
    long exact = Math.max(1, Math.round(fraction * stateBytes));
    return switch (pattern) {
      case ONE_RUN -> (int) Math.min(stateBytes, exact);
      case SCATTERED -> records(stateBytes, fraction) * RECORD_BYTES;
    };
  }

  private static int records(int stateBytes, double fraction) {
    int slots = stateBytes / RECORD_BYTES;
    long wanted = Math.max(1, Math.round(fraction * stateBytes / RECORD_BYTES));
    return (int) Math.min(slots, wanted);
  }

  /**
   * A copy of {@code state} with {@link #changedBytes} of it overwritten by random bytes from
   * {@code random}, which also picks where; {@code state} itself is only read.
   *
   * @throws IllegalArgumentException if the scattered pattern is asked of a state smaller than one
   *     record
   */
  static byte[] edited(byte[] state, double fraction, Pattern pattern, SplittableRandom random) {
    byte[] next = state.clone();
    switch (pattern) {
      case ONE_RUN -> {
        int length = changedBytes(state.length, fraction, pattern);
        int offset = random.nextInt(state.length - length + 1);
        fill(next, offset, length, random);
      }
      case SCATTERED -> {
        int slots = state.length / RECORD_BYTES;
        if (slots == 0) {
          throw new IllegalArgumentException(
              "a state of " + state.length + " bytes holds no record of " + RECORD_BYTES);
        }
        BitSet chosen = distinct(records(state.length, fraction), slots, random);
        for (int s = chosen.nextSetBit(0); s >= 0; s = chosen.nextSetBit(s + 1)) {
          fill(next, s * RECORD_BYTES, RECORD_BYTES, random);
        }
      }
    }
    return next;
  }

  /** {@code k} distinct numbers of {@code 0..n-1}, each set equally likely (Floyd's algorithm). */
  private static BitSet distinct(int k, int n, SplittableRandom random) {
    BitSet chosen = new BitSet(n);
    for (int j = n - k; j < n; j++) {
      int t = random.nextInt(j + 1);
      chosen.set(chosen.get(t) ? j : t);
    }
    return chosen;
  }

  private static void fill(byte[] b, int offset, int length, SplittableRandom random) {
    int end = offset + length;
    int i = offset;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      LONGS.set(b, i, random.nextLong());
    }
    if (i < end) {
      long last = random.nextLong();
      for (; i < end; i++, last >>>= 8) {
        b[i] = (byte) last;
      }
    }
  }
}
