package io.cutpoint.storage;

import io.cutpoint.api.v1.SnapshotStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Which snapshots retention deletes; pure logic. Keeps the newest {@code keep} COMPLETE snapshots,
 * every pinned one, every PENDING one, the protected ones (the target of a rollback in progress),
 * and the newest {@code keep} ABORTED or FAILED manifests as a history of what went wrong.
 * Everything else goes.
 */
final class RetentionPlan {
  /** What retention needs to know about one stored manifest. */
  record Entry(long id, SnapshotStatus status, boolean pinned) {}

  private RetentionPlan() {}

  /**
   * @param newestFirst every stored manifest, newest (highest id) first
   * @return the ids to delete, newest first
   */
  static List<Long> toDelete(List<Entry> newestFirst, int keep, Set<Long> protectedIds) {
    if (keep < 1) {
      throw new IllegalArgumentException("retention must keep at least 1 snapshot, got " + keep);
    }
    int complete = 0;
    int history = 0;
    List<Long> delete = new ArrayList<>();
    for (Entry e : newestFirst) {
      boolean kept =
          switch (e.status()) {
            case SNAPSHOT_STATUS_COMPLETE -> ++complete <= keep;
            case SNAPSHOT_STATUS_ABORTED, SNAPSHOT_STATUS_FAILED -> ++history <= keep;
            case SNAPSHOT_STATUS_PENDING, SNAPSHOT_STATUS_UNSPECIFIED, UNRECOGNIZED -> true;
          };
      if (!kept && !e.pinned() && !protectedIds.contains(e.id())) {
        delete.add(e.id());
      }
    }
    return delete;
  }
}
