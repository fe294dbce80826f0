package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ha.S3SnapshotStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorMultiTransaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ZooKeeper client retries a catalog transaction whose answer was lost; a retry of one that
 * went through the first time fails on its own result. Each catalog write here is sent twice, as
 * such a retry does, and must still succeed once, with the catalog as one write leaves it.
 */
class RetriedCatalogWriteTest {
  private static HaTestbed bed;

  /** Whether the next catalog transaction is sent again after it went through. */
  private volatile boolean sendNextTwice;

  @BeforeAll
  static void start() throws Exception {
    bed = new HaTestbed();
  }

  @AfterAll
  static void stop() throws Exception {
    bed.close();
  }

  private static Object call(Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** The testbed's client, whose transactions go out twice while {@link #sendNextTwice} says. */
  private CuratorFramework retrying() {
    CuratorFramework real = bed.zk;
    return (CuratorFramework)
        Proxy.newProxyInstance(
            CuratorFramework.class.getClassLoader(),
            new Class<?>[] {CuratorFramework.class},
            (proxy, method, args) -> {
              if (!method.getName().equals("transaction")) {
                return call(method, real, args);
              }
              CuratorMultiTransaction first = real.transaction();
              return Proxy.newProxyInstance(
                  CuratorMultiTransaction.class.getClassLoader(),
                  new Class<?>[] {CuratorMultiTransaction.class},
                  (p, m, a) -> {
                    Object result = call(m, first, a);
                    if (sendNextTwice && m.getName().equals("forOperations")) {
                      sendNextTwice = false;
                      return call(m, real.transaction(), a); // the answer above was lost
                    }
                    return result;
                  });
            });
  }

  private <T> T twice(java.util.function.Supplier<T> write) {
    sendNextTwice = true;
    T result = write.get();
    assertThat(sendNextTwice).as("the write went through the catalog").isFalse();
    return result;
  }

  private void twice(Runnable write) {
    twice(
        () -> {
          write.run();
          return null;
        });
  }

  @Test
  void everyCatalogWriteThatWentThroughOnAnEarlierTryIsASuccess() {
    S3SnapshotStore.Location where = bed.fresh();
    try (S3SnapshotStore store =
        S3SnapshotStore.open(
            bed.s3.client(), retrying(), where, bed.take(where), HaTestbed.OPTIONS)) {
      SnapshotFixture kept = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
      twice(() -> store.createPending(kept.pending()));
      kept.writePieces(store);
      twice(() -> store.commit(kept.complete()));
      assertThat(store.manifest(kept.id).orElseThrow().getStatus())
          .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      assertThat(kept.readState(store, "a")).isEqualTo(kept.states.get("a"));

      assertThat(twice(() -> store.setPinned(kept.id, true)).getPinned()).isTrue();
      assertThat(twice(() -> store.setPinned(kept.id, false)).getPinned()).isFalse();

      long epoch = store.epoch();
      twice(() -> store.beginRollback(epoch + 1, kept.id));
      assertThat(store.epoch()).isEqualTo(epoch + 1);
      assertThat(store.rollbackInProgress().orElseThrow().snapshotId()).isEqualTo(kept.id);
      twice(() -> store.finishRollback(epoch + 1));
      assertThat(store.rollbackInProgress()).isEmpty();

      SnapshotFixture ended = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
      store.createPending(ended.pending());
      twice(() -> store.finish(ended.aborted("an operator")));
      assertThat(store.manifest(ended.id).orElseThrow().getStatus())
          .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
      SnapshotFixture neverCreated = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
      twice(() -> store.finish(neverCreated.aborted("the coordinator stopped")));
      assertThat(store.manifest(neverCreated.id)).isPresent();

      assertThat(twice(() -> store.delete(kept.id))).isTrue();
      assertThat(store.manifest(kept.id)).isEmpty();
      assertThat(store.list(Set.of()))
          .extracting(m -> m.getSnapshotId())
          .containsExactly(neverCreated.id, ended.id);
    }
  }
}
