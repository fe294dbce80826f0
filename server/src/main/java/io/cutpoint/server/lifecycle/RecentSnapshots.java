package io.cutpoint.server.lifecycle;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * A short memory of snapshot ids that ended, so that a late piece (DISCARDED) is told from a
 * bogus one (UNKNOWN). Keeps the last {@code capacity} ids. Not thread-safe.
 */
final class RecentSnapshots {

  private final int capacity;
  private final Deque<Long> order = new ArrayDeque<>();
  private final Set<Long> ids = new HashSet<>();

  RecentSnapshots(int capacity) {
    this.capacity = capacity;
  }

  void remember(long id) {
    if (ids.add(id)) {
      order.addLast(id);
      if (order.size() > capacity) {
        ids.remove(order.removeFirst());
      }
    }
  }

  boolean contains(long id) {
    return ids.contains(id);
  }
}
