package io.cutpoint.ha.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.storage.SnapshotStore;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fenced store passes every call on to the leader term's store. A method it does not declare
 * runs the interface's default instead of the store's own: a store's faster or stricter override
 * (reading into reused arrays, a chunk checked once) would be silently lost in HA mode.
 */
class FencedStoreTest {

  @Test
  void declaresEveryMethodOfTheStoreInterfaceDefaultsIncluded() throws Exception {
    List<String> inherited =
        Arrays.stream(SnapshotStore.class.getMethods())
            .filter(m -> !Modifier.isStatic(m.getModifiers()))
            .filter(m -> declaringClass(m) != FencedStore.class)
            .map(m -> m.getName() + Arrays.toString(m.getParameterTypes()))
            .toList();
    assertThat(inherited).as("SnapshotStore methods FencedStore does not pass on").isEmpty();
  }

  private static Class<?> declaringClass(Method m) {
    try {
      return FencedStore.class.getMethod(m.getName(), m.getParameterTypes()).getDeclaringClass();
    } catch (NoSuchMethodException e) {
      throw new AssertionError(e);
    }
  }
}
