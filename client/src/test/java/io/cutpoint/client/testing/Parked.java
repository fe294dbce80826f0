package io.cutpoint.client.testing;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * "Nothing happens" without a time window: a thread that is parked (waiting or blocked) inside a
 * given method has stopped there, and whatever it would do next has not happened. A test waits
 * until the thread parks (or until what must not happen happened), then asserts.
 */
public final class Parked {

  private static final Set<Thread.State> PARKED =
      EnumSet.of(Thread.State.WAITING, Thread.State.TIMED_WAITING, Thread.State.BLOCKED);

  private Parked() {}

  /** Whether {@code thread} is parked with {@code owner.method} on its stack. */
  public static boolean in(Thread thread, Class<?> owner, String method) {
    return thread != null
        && PARKED.contains(thread.getState())
        && Arrays.stream(thread.getStackTrace())
            .anyMatch(
                f -> f.getClassName().equals(owner.getName()) && f.getMethodName().equals(method));
  }
}
