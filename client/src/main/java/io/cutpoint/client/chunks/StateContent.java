package io.cutpoint.client.chunks;

import com.google.protobuf.ByteString;
import java.util.List;

/**
 * A captured state as content-addressed chunks: their recipe, and the bytes of any one of them on
 * demand, so that an upload reads and sends only the chunks the coordinator lacks. The chunks
 * joined in order are the state's bytes, which a restore hands back to the application as one
 * array.
 */
public interface StateContent {

  /** The chunks, in order; their offsets and lengths tile the state. */
  List<ChunkRef> recipe();

  /** The state's size in bytes: the sum of the chunks' lengths. */
  long size();

  /** The CRC32C of the whole state, as the protocol carries it. */
  int crc32c();

  /**
   * The bytes of chunk {@code index} of the recipe; may wrap the application's arrays without
   * copying them (the application does not change what it handed over).
   */
  ByteString chunk(int index);
}
