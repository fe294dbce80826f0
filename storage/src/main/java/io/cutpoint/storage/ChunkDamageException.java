package io.cutpoint.storage;

import com.google.protobuf.ByteString;

/**
 * A content chunk is missing or fails its checks. Every snapshot that uses it is damaged, and the
 * store no longer offers it to new snapshots as held: the next upload of the same bytes stores them
 * again, which repairs the older snapshots too.
 */
public class ChunkDamageException extends CorruptionException {
  private static final long serialVersionUID = 1L;

  private final transient ByteString sha256;

  public ChunkDamageException(String message, ByteString sha256) {
    super(message);
    this.sha256 = sha256;
  }

  /** The damaged chunk's SHA-256. */
  public ByteString sha256() {
    return sha256;
  }
}
