package io.cutpoint.storage;

import java.util.Collection;
import java.util.Optional;

/**
 * When to drop the tombstones that retention leaves. Deleting a snapshot writes a point tombstone
 * for its manifest and a range tombstone per piece family. Until a flush and a compaction drop
 * them, every scan of the manifests steps over each point tombstone, and every read in a piece
 * family starts from every range tombstone in the memtable: with one small snapshot retained per
 * commit, retention cost 6.6 ms per commit after 6,000 snapshots and grew by a millisecond every
 * thousand, and reading the newest snapshot's state 1.7 ms. Compacting the deleted range once every
 * {@link #EVERY} deletions keeps both flat, for one memtable flush per that many commits.
 * Thread-safe.
 */
final class TombstonePurge {

  /** Deleted snapshots between two compactions. */
  static final int EVERY = 64;

  /** The ids whose key ranges to compact, first to last (other ids between may be live). */
  record Range(long first, long last) {}

  private final int every;
  private int count;
  private long first = Long.MAX_VALUE;
  private long last = Long.MIN_VALUE;

  TombstonePurge() {
    this(EVERY);
  }

  TombstonePurge(int every) {
    if (every < 1) {
      throw new IllegalArgumentException("every must be at least 1, got " + every);
    }
    this.every = every;
  }

  /**
   * Notes deleted snapshots that were not compacted on their own; once {@link #EVERY} have
   * gathered, returns the range that covers them all, and starts over.
   */
  synchronized Optional<Range> deleted(Collection<Long> ids) {
    for (long id : ids) {
      first = Math.min(first, id);
      last = Math.max(last, id);
      count++;
    }
    if (count < every) {
      return Optional.empty();
    }
    Range due = new Range(first, last);
    count = 0;
    first = Long.MAX_VALUE;
    last = Long.MIN_VALUE;
    return Optional.of(due);
  }
}
