package io.cutpoint.storage;

import io.cutpoint.api.v1.LocalSnapshotMeta;

/**
 * A worker's state that the worker itself holds (its local copy, for local recovery), named by size
 * and CRC32C so that it is counted only if it is the stored piece's state.
 *
 * @param bytes the state's size
 * @param crc32c the CRC32C of the whole state
 */
public record HeldState(long bytes, int crc32c) {

  /** True when {@code meta}'s state is this one. */
  public boolean is(LocalSnapshotMeta meta) {
    return meta.getStateBytes() == bytes && meta.getStateCrc32C() == crc32c;
  }
}
