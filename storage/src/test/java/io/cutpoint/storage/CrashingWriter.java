package io.cutpoint.storage;

import java.nio.file.Path;

/**
 * Run in a child JVM that the test kills with SIGKILL: opens the store (synced commits, the
 * production options) and writes snapshots without end, printing "OPEN", then per snapshot "WROTE
 * id worker" after each worker's state, "COMMITTING id" just before the commit and "COMMITTED id"
 * once it returned. With "content" as its second argument, the states are content-addressed and
 * share most of their chunks ({@link #contentFixture}).
 */
public final class CrashingWriter {
  private CrashingWriter() {}

  /** The content-addressed snapshot {@code id} the writer stores with "content" as 2nd argument. */
  static SnapshotFixture contentFixture(long id) {
    return SnapshotFixture.shared(id, (int) (id % 16), 4096);
  }

  public static void main(String[] args) {
    boolean content = args.length > 1 && args[1].equals("content");
    try (RocksSnapshotStore store = RocksSnapshotStore.open(Path.of(args[0]))) {
      System.out.println("OPEN");
      while (true) {
        long id = store.allocateSnapshotId();
        SnapshotFixture snap = content ? contentFixture(id) : new SnapshotFixture(id, 20_000, 1024);
        store.createPending(snap.pending());
        for (String worker : SnapshotFixture.WORKERS) {
          if (content) {
            snap.writeWorkerContent(store, worker);
          } else {
            snap.writeWorker(store, worker);
          }
          System.out.println("WROTE " + snap.id + " " + worker);
        }
        snap.writeChannels(store);
        System.out.println("COMMITTING " + snap.id);
        store.commit(snap.complete());
        System.out.println("COMMITTED " + snap.id);
      }
    }
  }
}
