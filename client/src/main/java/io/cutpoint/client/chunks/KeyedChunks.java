package io.cutpoint.client.chunks;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.Crc32c;
import io.cutpoint.api.Sha256;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts {@link KeyedState}s into chunks of whole entries, and remembers the chunks of the last one
 * so that the next capture reads and hashes only the chunks whose entries changed. One per worker;
 * one call at a time. What a call returns does not change with later calls.
 *
 * <p>Where a chunk ends depends on its entries' keys and sizes, never on where it starts: after an
 * entry of {@code s} encoded bytes, once the chunk has the chunker's minimum size, the chunk ends
 * with a chance of {@code s / (avg - min)}, decided by a hash of the key; it also ends before an
 * entry that would take it past the maximum. So chunks average about {@code avg} bytes, and an edit
 * moves at most the boundaries up to the next entry whose key ends a chunk. An entry larger than
 * the maximum has chunks of its own, cut in its value by the {@link ContentChunker}. The format
 * byte is the first chunk's first byte.
 */
public final class KeyedChunks {

  private final ContentChunker chunker;
  private Map<String, Run> runs = new HashMap<>(); // by first key; "" for the chunk with the format
  private Map<String, Big> bigs = new HashMap<>(); // by key
  private long bytesHashed;

  public KeyedChunks(ContentChunker chunker) {
    this.chunker = chunker;
  }

  /** Bytes read and hashed by the last {@link #content} (those of the chunks that changed). */
  public long bytesHashed() {
    return bytesHashed;
  }

  /** The chunks of {@code state}; reuses the hashes of the chunks the last call saw unchanged. */
  public StateContent content(KeyedState state) {
    Plan plan = new Plan(state);
    plan.cut();
    runs = plan.newRuns;
    bigs = plan.newBigs;
    bytesHashed = plan.hashed;
    return plan.content();
  }

  /**
   * A chunk of whole entries, the format byte first if {@code format}; {@code decided}: it ended
   * because of its last entry's key (so the same entries from the same start end it again).
   */
  private record Run(
      boolean format,
      String[] keys,
      byte[][] values,
      int length,
      byte[] sha256,
      int crc32c,
      boolean decided) {

    Run withDecided(boolean d) {
      return new Run(format, keys, values, length, sha256, crc32c, d);
    }
  }

  /** The chunks of one large entry: value ranges, the first one after the entry's prefix. */
  private record Big(byte[] value, int[] ends, List<ChunkRef> chunks) {}

  /** What chunk {@code i} of the recipe holds, to encode it on demand. */
  private record Part(int from, int to, boolean format, int bigEntry, int valueFrom, int valueTo) {}

  private final class Plan {
    final KeyedState state;
    final Map<String, Run> newRuns = new HashMap<>();
    final Map<String, Big> newBigs = new HashMap<>();
    final List<ChunkRef> recipe = new ArrayList<>();
    final List<Part> parts = new ArrayList<>();
    final Map<Integer, byte[]> encoded = new HashMap<>(); // chunks hashed now, kept for the upload
    long offset;
    long hashed;
    boolean formatPending = true;

    Plan(KeyedState state) {
      this.state = state;
    }

    void cut() {
      int n = state.size();
      int runStart = 0;
      long acc = 1; // the format byte
      for (int i = 0; i < n; i++) {
        if (i == runStart) {
          Run same = unchanged(i);
          if (same != null) { // the same entries from here: the same chunk, not read again
            reuse(same, i);
            runStart += same.keys().length;
            i = runStart - 1;
            acc = 0;
            continue;
          }
        }
        long s = state.entryBytes(i);
        if (s > chunker.maxSize()) {
          run(runStart, i, false);
          big(i);
          runStart = i + 1;
          acc = 0;
          continue;
        }
        if (acc > (formatPending ? 1 : 0) && acc + s > chunker.maxSize()) {
          run(runStart, i, false);
          runStart = i;
          acc = 0;
        }
        acc += s;
        if (acc >= chunker.minSize() && endsChunk(i, s)) {
          run(runStart, i + 1, true);
          runStart = i + 1;
          acc = 0;
        }
      }
      run(runStart, n, false);
    }

    /**
     * The last capture's chunk that starts with entry {@code from}, if it ended by its own last
     * entry's key and the entries from {@code from} are its very entries (equal keys, the same
     * value arrays): cut from here, they end the chunk at the same entry again, whatever follows.
     * Null otherwise, and for a chunk that ended because of the entry after it (too large to join
     * it) or at the end of the state.
     */
    private Run unchanged(int from) {
      boolean format = formatPending;
      Run old = runs.get(format ? "" : state.keys[from]);
      if (old == null || !old.decided() || old.format() != format) {
        return null;
      }
      String[] keys = old.keys();
      byte[][] values = old.values();
      if (keys.length == 0 || from + keys.length > state.size()) {
        return null;
      }
      for (int j = 0; j < keys.length; j++) {
        if (values[j] != state.values[from + j] || !keys[j].equals(state.keys[from + j])) {
          return null;
        }
      }
      return old;
    }

    private void reuse(Run same, int from) {
      boolean format = formatPending;
      formatPending = false;
      newRuns.put(format ? "" : state.keys[from], same);
      add(
          new Part(from, from + same.keys().length, format, -1, 0, 0),
          same.length(),
          same.sha256(),
          same.crc32c());
    }

    /** Whether a chunk ends after entry {@code i} of {@code s} bytes. */
    private boolean endsChunk(int i, long s) {
      double chance = Math.min(1.0, (double) s / (chunker.avgSize() - chunker.minSize()));
      long h = mix(state.keys[i].hashCode() + 0x9E3779B97F4A7C15L);
      return (h >>> 11) * 0x1.0p-53 < chance;
    }

    /**
     * Adds the chunk of entries {@code [from, to)} (and the format byte, if still due); {@code
     * decided}: it ends because of its last entry's key, not of the entry after it or the end.
     */
    private void run(int from, int to, boolean decided) {
      if (from == to && !formatPending) {
        return;
      }
      boolean format = formatPending;
      formatPending = false;
      String[] keys = java.util.Arrays.copyOfRange(state.keys, from, to);
      byte[][] values = java.util.Arrays.copyOfRange(state.values, from, to);
      String name = format ? "" : keys[0];
      Run old = runs.get(name);
      Run now;
      if (old != null
          && old.format() == format
          && java.util.Arrays.equals(old.keys(), keys)
          && sameArrays(old.values(), values)) {
        now = old.decided() == decided ? old : old.withDecided(decided);
      } else {
        byte[] bytes = encodeRun(format, from, to);
        now =
            new Run(
                format, keys, values, bytes.length, Sha256.of(bytes), Crc32c.of(bytes), decided);
        encoded.put(recipe.size(), bytes);
        hashed += bytes.length;
      }
      newRuns.put(name, now);
      add(new Part(from, to, format, -1, 0, 0), now.length(), now.sha256(), now.crc32c());
    }

    /** Adds the chunks of the large entry {@code i}. */
    private void big(int i) {
      String key = state.keys[i];
      byte[] value = state.values[i];
      Big old = bigs.get(key);
      Big now;
      if (old != null && old.value() == value) {
        now = old;
      } else {
        int[] ends = chunker.cut(value);
        List<ChunkRef> chunks = new ArrayList<>(ends.length);
        int start = 0;
        for (int end : ends) {
          byte[] bytes = encodeBig(i, start, end);
          encoded.put(recipe.size() + chunks.size(), bytes);
          hashed += bytes.length;
          chunks.add(new ChunkRef(0, bytes.length, Sha256.of(bytes), Crc32c.of(bytes)));
          start = end;
        }
        now = new Big(value, ends, chunks);
      }
      newBigs.put(key, now);
      int start = 0;
      for (int c = 0; c < now.ends().length; c++) {
        ChunkRef ref = now.chunks().get(c);
        add(
            new Part(i, i + 1, false, i, start, now.ends()[c]),
            ref.length(),
            ref.sha256(),
            ref.crc32c());
        start = now.ends()[c];
      }
    }

    private void add(Part part, int length, byte[] sha256, int crc32c) {
      if (offset + length > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("a keyed state is limited to 2 GiB");
      }
      recipe.add(new ChunkRef((int) offset, length, sha256, crc32c));
      parts.add(part);
      offset += length;
    }

    private byte[] encodeRun(boolean format, int from, int to) {
      long length = format ? 1 : 0;
      for (int e = from; e < to; e++) {
        length += state.entryBytes(e);
      }
      byte[] out = new byte[(int) length];
      int at = 0;
      if (format) {
        out[at++] = KeyedState.FORMAT;
      }
      for (int e = from; e < to; e++) {
        at = state.writeEntry(e, out, at);
      }
      return out;
    }

    /**
     * The bytes of value range {@code [from, to)} of entry {@code i}, after its prefix if first.
     */
    private byte[] encodeBig(int i, int from, int to) {
      int prefix = from == 0 ? state.prefixBytes(i) : 0;
      byte[] out = new byte[prefix + to - from];
      if (from == 0) {
        state.writePrefix(i, out, 0);
      }
      System.arraycopy(state.values[i], from, out, prefix, to - from);
      return out;
    }

    StateContent content() {
      List<ChunkRef> chunks = Collections.unmodifiableList(recipe);
      List<Part> what = List.copyOf(parts);
      long size = offset;
      int whole = ChunkRecipe.crc32c(chunks);
      Map<Integer, byte[]> fresh = encoded;
      return new StateContent() {
        @Override
        public List<ChunkRef> recipe() {
          return chunks;
        }

        @Override
        public long size() {
          return size;
        }

        @Override
        public int crc32c() {
          return whole;
        }

        @Override
        public ByteString chunk(int index) {
          byte[] bytes = fresh.remove(index); // sent once; a retry encodes it again
          if (bytes == null) {
            Part p = what.get(index);
            bytes =
                p.bigEntry() >= 0
                    ? encodeBig(p.bigEntry(), p.valueFrom(), p.valueTo())
                    : encodeRun(p.format(), p.from(), p.to());
          }
          return UnsafeByteOperations.unsafeWrap(bytes);
        }
      };
    }
  }

  private static boolean sameArrays(byte[][] a, byte[][] b) {
    if (a.length != b.length) {
      return false;
    }
    for (int i = 0; i < a.length; i++) {
      if (a[i] != b[i]) {
        return false;
      }
    }
    return true;
  }

  /** SplitMix64's finalizer: spreads a key's hash over 64 bits. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
