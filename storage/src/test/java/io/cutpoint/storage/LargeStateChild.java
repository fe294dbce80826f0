package io.cutpoint.storage;

import java.nio.file.Path;

/**
 * Run in a child JVM with a heap smaller than the state: writes a 64 MiB state in 1 MiB chunks,
 * reads it back streaming, and prints "OK bytes written-ms read-ms". Holding the whole state at
 * once anywhere would end in an OutOfMemoryError.
 */
public final class LargeStateChild {
  private LargeStateChild() {}

  public static void main(String[] args) {
    long size = 64L << 20;
    int chunk = 1 << 20;
    try (RocksSnapshotStore store = RocksSnapshotStore.open(Path.of(args[0]))) {
      long id = store.allocateSnapshotId();
      long t0 = System.nanoTime();
      LargeState.write(store, id, size, chunk);
      long t1 = System.nanoTime();
      long read = LargeState.readAndCheck(store, id, chunk);
      long t2 = System.nanoTime();
      store.verifyIntegrity(id);
      long t3 = System.nanoTime();
      System.out.printf(
          "OK %d %d %d %d%n",
          read, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000);
    }
  }
}
