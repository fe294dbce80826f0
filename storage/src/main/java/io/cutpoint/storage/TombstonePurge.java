package io.cutpoint.storage;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * When to drop the tombstones that retention leaves. Deleting a snapshot writes a point tombstone
 * for its manifest and a range tombstone per piece family. Until a flush and a compaction drop
 * them, every scan of the manifests steps over each point tombstone, and every read in a piece
 * family starts from every range tombstone in the memtable: with one small snapshot retained per
 * commit, retention cost 6.6 ms per commit after 6,000 snapshots and grew by a millisecond every
 * thousand, and reading the newest snapshot's state 1.7 ms. Compacting the deleted ranges once
 * every {@link #EVERY} deletions keeps both flat, for one memtable flush per that many commits.
 *
 * <p>The ranges are runs of nearby deleted ids, split where two are more than {@link #EVERY} apart:
 * an old failure deleted with recent snapshots (retention keeps a history of failures) does not
 * stretch one range over every snapshot kept between them, which the compaction would rewrite.
 * Thread-safe.
 */
final class TombstonePurge {

  /** Deleted snapshots between two compactions, and the widest gap inside one range. */
  static final int EVERY = 64;

  /** The ids whose key ranges to compact, first to last (other ids between may be live). */
  record Range(long first, long last) {}

  private final int every;
  private final TreeSet<Long> ids = new TreeSet<>();

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
   * Notes deleted snapshots that were not compacted on their own; once {@code every} have gathered,
   * returns the ranges that cover them all, lowest first, and starts over.
   */
  synchronized List<Range> deleted(Collection<Long> deleted) {
    ids.addAll(deleted);
    if (ids.size() < every) {
      return List.of();
    }
    List<Range> due = new ArrayList<>();
    long first = ids.first();
    long last = first;
    for (long id : ids) {
      if (id - last > every) {
        due.add(new Range(first, last));
        first = id;
      }
      last = id;
    }
    due.add(new Range(first, last));
    ids.clear();
    return due;
  }
}
