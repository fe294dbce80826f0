package io.cutpoint.util;

import java.util.ArrayDeque;

/**
 * Byte arrays kept for reuse, so that a path that copies many chunks through a short-lived array
 * does not allocate (and, on fresh heap, fault in and zero) one per chunk. Keeps at most {@code
 * kept} arrays; an array taken is the caller's until it {@link #give gives} it back, and one never
 * given back is only collected. Thread-safe.
 */
public final class ArrayPool {

  /** The smallest array allocated, so that one array serves chunks of different sizes. */
  static final int SMALLEST = 64 << 10;

  private final int kept;
  private final ArrayDeque<byte[]> free = new ArrayDeque<>(); // guarded by itself
  private long reused; // guarded by free

  /** A pool that keeps at most {@code kept} arrays. */
  public ArrayPool(int kept) {
    if (kept < 1) {
      throw new IllegalArgumentException("kept must be positive, got " + kept);
    }
    this.kept = kept;
  }

  /** An array of at least {@code size} bytes, kept or new. */
  public byte[] take(int size) {
    synchronized (free) {
      byte[] array = free.poll();
      if (array != null && array.length >= size) {
        reused++;
        return array;
      }
    }
    return new byte[Math.max(size, SMALLEST)];
  }

  /** Gives {@code array} back for reuse; the caller no longer reads or writes it. */
  public void give(byte[] array) {
    synchronized (free) {
      if (free.size() < kept) {
        free.push(array);
      }
    }
  }

  /** Arrays handed out again so far. */
  public long reused() {
    synchronized (free) {
      return reused;
    }
  }
}
