package io.cutpoint.server.testing;

import io.cutpoint.storage.SnapshotStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * A real store with a test's step ahead of each of its calls: to record them, hold one back, or
 * fail one as a broken disk would.
 */
public final class InterceptedStore {

  /** What runs before each call is passed on; what it throws is what the call throws. */
  @FunctionalInterface
  public interface Before {
    void call(String method, Object[] args) throws Throwable;
  }

  private InterceptedStore() {}

  /** {@code real}, with {@code before} run ahead of every call. */
  public static SnapshotStore around(SnapshotStore real, Before before) {
    return (SnapshotStore)
        Proxy.newProxyInstance(
            SnapshotStore.class.getClassLoader(),
            new Class<?>[] {SnapshotStore.class},
            (proxy, method, args) -> {
              before.call(method.getName(), args);
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
