package io.cutpoint.server.e2e;

import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.SnapshotStore;

/**
 * A real store whose reads of one worker's state fail their checksum, as the RocksDB store's do
 * when the disk damaged a stored chunk; so does every integrity check. Every other call, and every
 * read of another worker's state, is the real store's.
 */
final class DamagedStore {

  private DamagedStore() {}

  static SnapshotStore around(SnapshotStore real, String victim) {
    return InterceptedStore.around(
        real,
        (method, args) -> {
          boolean readsVictim = method.equals("readState") && victim.equals(args[1]);
          if (readsVictim || method.equals("verifyIntegrity")) {
            throw new CorruptionException("worker " + victim + ", state chunk 0: CRC32C mismatch");
          }
        });
  }
}
