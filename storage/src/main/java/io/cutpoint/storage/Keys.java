package io.cutpoint.storage;

import io.cutpoint.cut.ChannelId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Key layouts. Every snapshot key starts with the snapshot id as 8 big-endian bytes, so keys of one
 * snapshot are contiguous and iteration runs in id order. Strings are written as a 2-byte
 * big-endian length then their UTF-8 bytes, so a worker's prefix never matches another worker.
 *
 * <pre>
 *   manifests:      id
 *   state_chunks:   id | worker | chunk index (4 bytes)
 *   channel_states: id | receiver | sender | first sequence number of the batch (8 bytes)
 *   worker_meta:    id | worker
 *   metadata:       a fixed ASCII name ("epoch", "id_high_water", "rollback_intent")
 * </pre>
 */
final class Keys {
  /** Longest worker id, in UTF-8 bytes, that fits the 2-byte length. */
  static final int MAX_NAME_BYTES = 0xFFFF;

  private Keys() {}

  static byte[] snapshot(long snapshotId) {
    return ByteBuffer.allocate(8).putLong(snapshotId).array();
  }

  /** The first key after every key of {@code snapshotId}: the end of its range. */
  static byte[] snapshotEnd(long snapshotId) {
    return snapshot(snapshotId + 1);
  }

  static long snapshotIdOf(byte[] key) {
    return ByteBuffer.wrap(key, 0, 8).getLong();
  }

  static byte[] worker(long snapshotId, String workerId) {
    return builder(snapshotId, 2 + utf8Length(workerId)).name(workerId).bytes();
  }

  static byte[] stateChunk(long snapshotId, String workerId, int index) {
    return builder(snapshotId, 2 + utf8Length(workerId) + 4).name(workerId).putInt(index).bytes();
  }

  static int chunkIndexOf(byte[] key) {
    return ByteBuffer.wrap(key, key.length - 4, 4).getInt();
  }

  /** Prefix of every recorded batch on the channels into {@code receiver}. */
  static byte[] receiver(long snapshotId, String receiver) {
    return worker(snapshotId, receiver);
  }

  static byte[] channel(long snapshotId, ChannelId channel) {
    int size = 2 + utf8Length(channel.to()) + 2 + utf8Length(channel.from());
    return builder(snapshotId, size).name(channel.to()).name(channel.from()).bytes();
  }

  static byte[] channelBatch(long snapshotId, ChannelId channel, long firstSeq) {
    byte[] prefix = channel(snapshotId, channel);
    return ByteBuffer.allocate(prefix.length + 8).put(prefix).putLong(firstSeq).array();
  }

  /** The worker of a worker, state chunk or (receiver of a) channel key. */
  static String workerOf(byte[] key) {
    return nameAt(ByteBuffer.wrap(key, 8, key.length - 8));
  }

  /** The channel of a channel batch key. */
  static ChannelId channelOf(byte[] key) {
    ByteBuffer buf = ByteBuffer.wrap(key, 8, key.length - 8);
    String to = nameAt(buf);
    String from = nameAt(buf);
    return new ChannelId(from, to);
  }

  static long batchSeqOf(byte[] key) {
    return ByteBuffer.wrap(key, key.length - 8, 8).getLong();
  }

  private static String nameAt(ByteBuffer buf) {
    int length = Short.toUnsignedInt(buf.getShort());
    byte[] b = new byte[length];
    buf.get(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  static byte[] metadata(String name) {
    return name.getBytes(StandardCharsets.US_ASCII);
  }

  /** The smallest key greater than every key that starts with {@code prefix}. */
  static byte[] prefixEnd(byte[] prefix) {
    byte[] end = prefix.clone();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xFF) {
        end[i]++;
        return java.util.Arrays.copyOf(end, i + 1);
      }
    }
    throw new IllegalArgumentException("prefix of only 0xFF bytes has no end");
  }

  private static int utf8Length(String s) {
    int n = s.getBytes(StandardCharsets.UTF_8).length;
    if (n > MAX_NAME_BYTES) {
      throw new IllegalArgumentException(
          "worker id longer than " + MAX_NAME_BYTES + " bytes: " + s.substring(0, 32) + "...");
    }
    return n;
  }

  private static Builder builder(long snapshotId, int extra) {
    return new Builder(ByteBuffer.allocate(8 + extra).putLong(snapshotId));
  }

  private record Builder(ByteBuffer buf) {
    Builder name(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      buf.putShort((short) b.length).put(b);
      return this;
    }

    Builder putInt(int v) {
      buf.putInt(v);
      return this;
    }

    byte[] bytes() {
      return buf.array();
    }
  }
}
