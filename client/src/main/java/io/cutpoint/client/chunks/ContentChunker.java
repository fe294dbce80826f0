package io.cutpoint.client.chunks;

import java.util.Arrays;
import java.util.Objects;

/**
 * Content-defined chunking of a state: FastCDC (Xia et al., "FastCDC: a Fast and Efficient
 * Content-Defined Chunking Approach for Data Deduplication", USENIX ATC 2016) with normalized
 * chunking. A cut point depends only on the bytes just before it, so an edit in the middle of a
 * state moves the boundaries of one or two chunks and leaves the others as they were: the chunks a
 * coordinator already holds need not be uploaded again. Pure logic; immutable and safe to share
 * between threads.
 *
 * <p>The rolling hash is the gear hash {@code h = (h << 1) + GEAR[b & 0xff]}: bit {@code k} of
 * {@code h} depends on the last {@code k + 1} bytes only, so the masks test the top bits, which see
 * the last 44 to 64 bytes (47 to 64 with the defaults). Each chunk skips its first {@code min}
 * bytes without hashing them; from there to {@code avg} bytes a cut needs the top {@code log2(avg)
 * + 2} bits of {@code h} to be zero (the stricter mask, a chance of {@code 1/(4 avg)} a byte); from
 * {@code avg} to {@code max} it needs the top {@code log2(avg) - 2} bits (the looser mask, {@code
 * 4/avg} a byte); at {@code max} it cuts regardless. This is the paper's normalized chunking, level
 * 2. With the defaults the masks are {@code 0xffffc00000000000L} (18 bits) and {@code
 * 0xfffc000000000000L} (14 bits).
 *
 * <p>On random data with the {@linkplain #defaults() defaults} (16 KiB, 64 KiB, 256 KiB), about 17%
 * of chunks end between 16 and 64 KiB, the others soon after 64 KiB (a further 16 KiB on average,
 * an exponential tail), and a chunk reaches 256 KiB about once in 200,000: the mean and the median
 * are both about 73 KiB, nine chunks in ten are between 42 and 97 KiB. Data that repeats itself
 * (long runs of one byte) has no cut points and comes out in chunks of {@code max} bytes.
 *
 * <p>The gear table comes from SplitMix64 seeded with {@link #GEAR_SEED} (the ASCII bytes of
 * "cutpoint"): entry {@code i} is the {@code i+1}-th output (the same numbers as {@code new
 * SplittableRandom(GEAR_SEED).nextLong()}, which this class does not rely on). Together with the
 * masks it defines the cut points, which therefore never change between versions or JVMs; {@code
 * ContentChunkerTest} pins them.
 */
public final class ContentChunker {

  /** The seed of the gear table's SplitMix64 sequence: {@code "cutpoint"} in ASCII. */
  public static final long GEAR_SEED = 0x637574706f696e74L;

  /** Smallest allowed {@code min}. */
  public static final int MIN_SIZE_FLOOR = 64;

  /** Largest allowed {@code max}: 1 MiB. */
  public static final int MAX_SIZE_CEILING = 1 << 20;

  private static final long[] GEAR = gearTable();

  private static final ContentChunker DEFAULTS = of(16 << 10, 64 << 10, 256 << 10);

  private final int min;
  private final int avg;
  private final int max;
  private final long strictMask;
  private final long looseMask;

  private ContentChunker(int min, int avg, int max) {
    this.min = min;
    this.avg = avg;
    this.max = max;
    int bits = Integer.numberOfTrailingZeros(avg);
    this.strictMask = topBits(bits + 2);
    this.looseMask = topBits(bits - 2);
  }

  /** Chunks of 16 KiB to 256 KiB, 64 KiB targeted. */
  public static ContentChunker defaults() {
    return DEFAULTS;
  }

  /**
   * A chunker with these sizes, in bytes.
   *
   * @param min the smallest chunk, but for the last one of a range; at least 64
   * @param avg the target size, where the masks switch; a power of two above {@code min}
   * @param max the largest chunk; above {@code avg}, at most 1 MiB
   * @throws IllegalArgumentException if the sizes are not so
   */
  public static ContentChunker of(int min, int avg, int max) {
    if (min < MIN_SIZE_FLOOR) {
      throw new IllegalArgumentException(
          "min chunk size " + min + " is below " + MIN_SIZE_FLOOR + " bytes");
    }
    if (avg <= min) {
      throw new IllegalArgumentException(
          "average chunk size " + avg + " must be above the min, " + min);
    }
    if (Integer.bitCount(avg) != 1) {
      throw new IllegalArgumentException("average chunk size " + avg + " is not a power of two");
    }
    if (max <= avg) {
      throw new IllegalArgumentException(
          "max chunk size " + max + " must be above the average, " + avg);
    }
    if (max > MAX_SIZE_CEILING) {
      throw new IllegalArgumentException(
          "max chunk size " + max + " is above " + MAX_SIZE_CEILING + " bytes (1 MiB)");
    }
    return new ContentChunker(min, avg, max);
  }

  /** The smallest chunk, but for the last one of a range. */
  public int minSize() {
    return min;
  }

  /** The target size, a power of two. */
  public int avgSize() {
    return avg;
  }

  /** The largest chunk. */
  public int maxSize() {
    return max;
  }

  /** The end offsets of the chunks of all of {@code data}; see {@link #cut(byte[], int, int)}. */
  public int[] cut(byte[] data) {
    return cut(data, 0, data.length);
  }

  /**
   * The chunks of {@code data[from, to)}, as their end offsets (exclusive, counted from the start
   * of {@code data}): strictly increasing, the last one is {@code to}. Every chunk has {@code min}
   * to {@code max} bytes but the last, which may be shorter. An empty range has no chunks.
   *
   * @throws IndexOutOfBoundsException if the range is not within {@code data}
   */
  public int[] cut(byte[] data, int from, int to) {
    Objects.checkFromToIndex(from, to, data.length);
    int[] ends = new int[(to - from) / avg + 4];
    int count = 0;
    int start = from;
    while (start < to) {
      int end = nextEnd(data, start, to);
      if (count == ends.length) {
        ends = Arrays.copyOf(ends, count * 2);
      }
      ends[count++] = end;
      start = end;
    }
    return count == ends.length ? ends : Arrays.copyOf(ends, count);
  }

  /**
   * The end of the one chunk of {@code data[from, to)} that starts at {@code from}: the first of
   * {@link #cut(byte[], int, int)}'s ends ({@code to} for a range of at most {@code min} bytes).
   */
  public int cutOne(byte[] data, int from, int to) {
    Objects.checkFromToIndex(from, to, data.length);
    return from == to ? to : nextEnd(data, from, to);
  }

  /** The end of the chunk that starts at {@code start}, at most {@code to}. */
  private int nextEnd(byte[] data, int start, int to) {
    int remaining = to - start;
    if (remaining <= min) {
      return to;
    }
    int limit = start + Math.min(remaining, max);
    int normal = start + Math.min(remaining, avg);
    long[] gear = GEAR;
    long mask = strictMask;
    long h = 0;
    int i = start + min;
    for (; i < normal; i++) {
      h = (h << 1) + gear[data[i] & 0xff];
      if ((h & mask) == 0) {
        return i + 1;
      }
    }
    mask = looseMask;
    for (; i < limit; i++) {
      h = (h << 1) + gear[data[i] & 0xff];
      if ((h & mask) == 0) {
        return i + 1;
      }
    }
    return limit;
  }

  @Override
  public String toString() {
    return "ContentChunker[min=" + min + ", avg=" + avg + ", max=" + max + "]";
  }

  private static long topBits(int n) {
    return -1L << (64 - n);
  }

  /** SplitMix64 (Steele, Lea, Flood 2014) from {@link #GEAR_SEED}: 256 outputs. */
  private static long[] gearTable() {
    long[] table = new long[256];
    long state = GEAR_SEED;
    for (int i = 0; i < table.length; i++) {
      state += 0x9e3779b97f4a7c15L;
      long z = state;
      z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
      z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
      table[i] = z ^ (z >>> 31);
    }
    return table;
  }
}
