package io.cutpoint.client.chunks;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A state handed over as sorted key/value entries rather than as one array. Its bytes are the
 * entries in key order, each a varint key length, the key in UTF-8, a varint value length and the
 * value, after one format byte ({@value #FORMAT}); {@link #decode} turns them back into entries for
 * a restore.
 *
 * <p>Its chunks hold whole entries, and where one chunk ends depends on the keys and sizes of its
 * entries only ({@link KeyedChunks}), so changing, adding or removing a few entries changes the
 * chunks that hold them and leaves the others as they were. A chunk whose entries are the very same
 * objects as at the previous capture is not read or hashed again: a snapshot costs what changed.
 * For that, the values must not change once captured: replace a value with a new array, never write
 * into one that a capture took (the same promise as {@link
 * io.cutpoint.client.StateHandler#capture()} asks for its array, here kept for as long as the entry
 * stays).
 *
 * <p>Use it for a state that is a map or a table and changes in a few places between snapshots; use
 * a plain array for a state that is small, or that changes all over.
 *
 * <p>{@link #of} only reads the map (it runs in the capture, on the worker's loop, where markers
 * and messages wait for it); the keys are encoded to UTF-8 when the chunks are cut, on the thread
 * that cuts them, each once. Hand an instance from one thread to the next through an executor, as
 * the SDK does.
 */
public final class KeyedState {

  /** The first byte of a keyed state's bytes. */
  public static final byte FORMAT = 0x4b; // 'K'

  /** Longest key, in UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 16 << 10;

  final String[] keys;
  private final byte[][] keyBytes; // each encoded when first asked for
  final byte[][] values;

  private KeyedState(String[] keys, byte[][] keyBytes, byte[][] values) {
    this.keys = keys;
    this.keyBytes = keyBytes;
    this.values = values;
  }

  /**
   * The entries of {@code entries}, in its order, which must be the natural order of the keys. The
   * map is read now; the value arrays are kept, not copied.
   *
   * @throws IllegalArgumentException if the map has a comparator of its own, a key is longer than
   *     {@link #MAX_KEY_BYTES} in UTF-8 or has a lone surrogate (half a character), or a value is
   *     null
   */
  public static KeyedState of(SortedMap<String, byte[]> entries) {
    if (entries.comparator() != null) {
      throw new IllegalArgumentException(
          "a keyed state's entries are in the natural order of their keys; this map has a"
              + " comparator");
    }
    int n = entries.size();
    String[] keys = new String[n];
    byte[][] keyBytes = new byte[n][];
    byte[][] values = new byte[n][];
    int i = 0;
    for (Map.Entry<String, byte[]> e : entries.entrySet()) {
      String key = e.getKey();
      requireWellFormed(key);
      if (key.length() > MAX_KEY_BYTES / 3) { // a char takes at most 3 bytes of UTF-8
        byte[] encoded = key.getBytes(StandardCharsets.UTF_8);
        if (encoded.length > MAX_KEY_BYTES) {
          throw new IllegalArgumentException(
              "key of "
                  + encoded.length
                  + " UTF-8 bytes; at most "
                  + MAX_KEY_BYTES
                  + " are allowed");
        }
        keyBytes[i] = encoded;
      }
      keys[i] = key;
      values[i] = Objects.requireNonNull(e.getValue(), () -> "the value of key " + e.getKey());
      i++;
    }
    return new KeyedState(keys, keyBytes, values);
  }

  /** The number of entries. */
  public int size() {
    return keys.length;
  }

  /** All of the state's bytes, as a restore hands them back. */
  public byte[] toBytes() {
    long total = 1;
    for (int i = 0; i < keys.length; i++) {
      total += entryBytes(i);
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("a keyed state of " + total + " bytes does not fit an array");
    }
    byte[] out = new byte[(int) total];
    out[0] = FORMAT;
    int at = 1;
    for (int i = 0; i < keys.length; i++) {
      at = writeEntry(i, out, at);
    }
    return out;
  }

  /**
   * The entries of a keyed state's bytes (what {@link #toBytes()} or a restore gives), in key
   * order.
   *
   * @throws IllegalArgumentException if {@code state} is not a keyed state's bytes
   */
  public static SortedMap<String, byte[]> decode(byte[] state) {
    if (state.length == 0 || state[0] != FORMAT) {
      throw new IllegalArgumentException("not the bytes of a keyed state (no format byte)");
    }
    SortedMap<String, byte[]> out = new TreeMap<>();
    CodedInputStream in = CodedInputStream.newInstance(state, 1, state.length - 1);
    in.setSizeLimit(Integer.MAX_VALUE);
    try {
      while (!in.isAtEnd()) {
        String key = new String(in.readByteArray(), StandardCharsets.UTF_8);
        out.put(key, in.readByteArray());
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("a keyed state's bytes are cut short: " + e.getMessage());
    }
    return out;
  }

  /** Encoded bytes of entry {@code i}: its two lengths, key and value. */
  long entryBytes(int i) {
    return prefixBytes(i) + (long) values[i].length;
  }

  /** Encoded bytes of entry {@code i} before its value: the two lengths and the key. */
  int prefixBytes(int i) {
    int key = keyBytes(i).length;
    return CodedOutputStream.computeUInt32SizeNoTag(key)
        + key
        + CodedOutputStream.computeUInt32SizeNoTag(values[i].length);
  }

  /**
   * Refuses a key with a lone surrogate (half of a character cut off, say): UTF-8 has no bytes for
   * it, so it would come back as another key, and two keys could restore as one.
   */
  private static void requireWellFormed(String key) {
    for (int k = 0, n = key.length(); k < n; k++) {
      char c = key.charAt(k);
      if (!Character.isSurrogate(c)) {
        continue;
      }
      if (Character.isHighSurrogate(c)
          && k + 1 < n
          && Character.isLowSurrogate(key.charAt(k + 1))) {
        k++;
        continue;
      }
      throw new IllegalArgumentException(
          String.format(
              "key \"%s\\u%04x...\" has a lone surrogate at index %d: half a character,"
                  + " which UTF-8 cannot keep",
              key.substring(0, Math.min(k, 64)), (int) c, k));
    }
  }

  /** Key {@code i} in UTF-8, encoded the first time it is asked for. */
  private byte[] keyBytes(int i) {
    byte[] b = keyBytes[i];
    if (b == null) {
      b = keys[i].getBytes(StandardCharsets.UTF_8);
      keyBytes[i] = b;
    }
    return b;
  }

  /** Writes entry {@code i} into {@code out} at {@code at}; returns where it ends. */
  int writeEntry(int i, byte[] out, int at) {
    at = writePrefix(i, out, at);
    System.arraycopy(values[i], 0, out, at, values[i].length);
    return at + values[i].length;
  }

  /** Writes entry {@code i}'s lengths and key into {@code out} at {@code at}; returns the end. */
  int writePrefix(int i, byte[] out, int at) {
    int length = prefixBytes(i);
    CodedOutputStream o = CodedOutputStream.newInstance(out, at, length);
    try {
      byte[] key = keyBytes(i);
      o.writeUInt32NoTag(key.length);
      o.writeRawBytes(key);
      o.writeUInt32NoTag(values[i].length);
      o.flush();
    } catch (IOException e) {
      throw new IllegalStateException("the prefix does not fit its computed size", e);
    }
    return at + length;
  }
}
