package io.cutpoint.ha;

import com.google.protobuf.ByteString;
import io.cutpoint.api.Sha256;
import io.cutpoint.cut.ChannelId;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Object keys of the pieces of a snapshot, all under {@code {prefix}/snapshots/{id}/}, and of the
 * content chunks that snapshots share, under {@code {prefix}/chunks/}:
 *
 * <pre>
 *   {prefix}/snapshots/{id}/{worker}/meta                          worker metadata
 *   {prefix}/snapshots/{id}/{worker}/state/{index}                 numbered state chunk
 *   {prefix}/snapshots/{id}/{receiver}/channels/{sender}/{first}   recorded batch
 *   {prefix}/chunks/{sha256}-{length}-{crc32c}                     content chunk (hex, decimal, hex)
 * </pre>
 *
 * <p>Ids and sequence numbers are zero-padded to 19 digits and chunk indices to 10, so listing
 * order is numeric order. Worker ids are URL-encoded, so a worker id never contains a {@code /} and
 * the keys of worker {@code a} are never a prefix of those of worker {@code ab}.
 */
final class ObjectKeys {
  private static final HexFormat HEX = HexFormat.of();

  private final String root;
  private final String chunks;

  /**
   * @param prefix the key prefix of this store, without a trailing slash (may be empty)
   */
  ObjectKeys(String prefix) {
    String base = prefix.isEmpty() ? "" : prefix + "/";
    this.root = base + "snapshots/";
    this.chunks = base + "chunks/";
  }

  /** The prefix under which every content chunk lies. */
  String chunksRoot() {
    return chunks;
  }

  /**
   * A content chunk's key. Its length and CRC32C are part of the name, so that listing the chunks
   * tells what each one holds without reading it.
   */
  String contentChunk(ByteString sha256, int length, int crc32c) {
    return chunks
        + HEX.formatHex(sha256.toByteArray())
        + "-"
        + length
        + "-"
        + HEX.toHexDigits(crc32c);
  }

  /** The chunk a key listed under {@link #chunksRoot()} names, or null if it names none. */
  ContentObjects.Chunk chunkOf(String key) {
    String[] parts = key.substring(chunks.length()).split("-", -1);
    try {
      if (parts.length != 3 || parts[0].length() != 2 * Sha256.BYTES || parts[2].length() != 8) {
        return null;
      }
      return new ContentObjects.Chunk(
          ByteString.copyFrom(HEX.parseHex(parts[0])),
          Integer.parseInt(parts[1]),
          HEX.fromHexDigits(parts[2]));
    } catch (IllegalArgumentException notOurs) {
      return null;
    }
  }

  /** The prefix under which every snapshot's directory lies. */
  String snapshotsRoot() {
    return root;
  }

  String snapshot(long id) {
    return root + String.format("%019d", id) + "/";
  }

  /** The snapshot id of a directory name listed under {@link #snapshotsRoot()}, or -1. */
  long idOf(String commonPrefix) {
    String name = commonPrefix.substring(root.length()).replace("/", "");
    try {
      return Long.parseLong(name);
    } catch (NumberFormatException notOurs) {
      return -1;
    }
  }

  String worker(long id, String workerId) {
    return snapshot(id) + encode(workerId) + "/";
  }

  String meta(long id, String workerId) {
    return worker(id, workerId) + "meta";
  }

  String stateDir(long id, String workerId) {
    return worker(id, workerId) + "state/";
  }

  String stateChunk(long id, String workerId, int index) {
    return stateDir(id, workerId) + String.format("%010d", index);
  }

  int chunkIndexOf(String key) {
    return Integer.parseInt(key.substring(key.lastIndexOf('/') + 1));
  }

  /** Prefix of the batches of every channel into {@code receiver}. */
  String incoming(long id, String receiver) {
    return worker(id, receiver) + "channels/";
  }

  String channel(long id, ChannelId channel) {
    return incoming(id, channel.to()) + encode(channel.from()) + "/";
  }

  String batch(long id, ChannelId channel, long firstSeq) {
    return channel(id, channel) + String.format("%019d", firstSeq);
  }

  long batchSeqOf(String key) {
    return Long.parseLong(key.substring(key.lastIndexOf('/') + 1));
  }

  /** The channel of a batch key under {@link #incoming}. */
  ChannelId channelOf(long id, String receiver, String key) {
    String rest = key.substring(incoming(id, receiver).length());
    return ChannelId.of(decode(rest.substring(0, rest.indexOf('/'))), receiver);
  }

  private static String encode(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8);
  }

  private static String decode(String name) {
    return URLDecoder.decode(name, StandardCharsets.UTF_8);
  }
}
