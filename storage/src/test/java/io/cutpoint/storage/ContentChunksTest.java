package io.cutpoint.storage;

import com.google.protobuf.ByteString;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ContentChunksContract} on the RocksDB store: its chunks are the keys of {@code
 * content_chunks}, damaged and removed with the store closed.
 */
class ContentChunksTest extends ContentChunksContract {
  @TempDir Path tmp;

  @Override
  SnapshotStore open() {
    return RocksSnapshotStore.open(tmp.resolve("db"), RocksSnapshotStore.Options.DEFAULT);
  }

  @Override
  Set<ByteString> stored() throws Exception {
    Set<ByteString> out = new HashSet<>();
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      raw.allKeys(RocksHandles.CONTENT_CHUNKS).forEach(k -> out.add(ByteString.copyFrom(k)));
    }
    return out;
  }

  @Override
  void damage(ByteString hash) throws Exception {
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      raw.flipByte(RocksHandles.CONTENT_CHUNKS, hash.toByteArray(), 100);
    }
  }

  @Override
  void remove(ByteString hash) throws Exception {
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      raw.delete(RocksHandles.CONTENT_CHUNKS, hash.toByteArray());
    }
  }

  @Override
  int collectedOnOpen(SnapshotStore store) {
    return ((RocksSnapshotStore) store).contentChunksCollectedOnOpen();
  }
}
