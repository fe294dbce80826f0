package io.cutpoint.cut;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * A bounded memory of ids (snapshot ids) that ended, oldest forgotten first. It tells a late
 * message about a finished snapshot from one about a snapshot never seen: a late marker from the
 * first marker of a new snapshot, a late piece (DISCARDED) from a bogus one (UNKNOWN). Not
 * thread-safe: its owner confines it to one thread or guards it.
 */
public final class RecentIds {

  private final int capacity;
  private final Set<Long> ids = new LinkedHashSet<>();

  /**
   * @param capacity how many ids are remembered, at least 1
   */
  public RecentIds(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
  }

  /** Remembers {@code id} as the youngest; forgets the oldest beyond the capacity. */
  public void remember(long id) {
    Long boxed = id;
    ids.remove(boxed); // re-inserting moves it to the young end
    ids.add(boxed);
    if (ids.size() > capacity) {
      var oldest = ids.iterator();
      oldest.next();
      oldest.remove();
    }
  }

  public boolean contains(long id) {
    return ids.contains(id);
  }

  public int size() {
    return ids.size();
  }
}
