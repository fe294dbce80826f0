package io.cutpoint.client.engine;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * A bounded memory of snapshot ids this engine has finished with (completed, failed or aborted),
 * oldest forgotten first. It tells a late marker of a finished snapshot from the first marker of
 * a new one.
 */
final class RecentSnapshots {

  private final int capacity;
  private final Set<Long> ids = new LinkedHashSet<>();

  RecentSnapshots(int capacity) {
    this.capacity = capacity;
  }

  void remember(long snapshotId) {
    Long id = snapshotId;
    ids.remove(id); // re-inserting moves it to the young end
    ids.add(id);
    if (ids.size() > capacity) {
      var oldest = ids.iterator();
      oldest.next();
      oldest.remove();
    }
  }

  boolean contains(long snapshotId) {
    return ids.contains(snapshotId);
  }

  int size() {
    return ids.size();
  }
}
