package io.cutpoint.storage;

import io.cutpoint.api.v1.SnapshotManifest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the store knows to be damaged since it was opened: snapshots with a piece that failed its
 * checks (found at open, by a read, or by a verification), snapshots whose manifest cannot be read,
 * and what of the catalog was lost. Kept in memory only: the damage itself stays on disk, and the
 * next open or verification finds it again. Thread-safe.
 */
final class Damage {
  /** A reason is cut to this many characters: it is shown in lists, not a log. */
  static final int MAX_REASON = 512;

  private final ConcurrentSkipListMap<Long, String> snapshots = new ConcurrentSkipListMap<>();
  private final ConcurrentSkipListMap<Long, String> lostManifests = new ConcurrentSkipListMap<>();
  private final List<String> catalog = new CopyOnWriteArrayList<>();

  /** Marks a snapshot damaged; the first reason found is kept. */
  void snapshot(long id, String reason) {
    snapshots.putIfAbsent(id, cut(reason));
  }

  /** A snapshot that has pieces but whose manifest cannot be read. */
  void lostManifest(long id, String reason) {
    lostManifests.putIfAbsent(id, cut(reason));
    snapshot(id, "manifest unreadable: " + reason);
  }

  void catalog(String what) {
    catalog.add(what);
  }

  Optional<String> of(long id) {
    return Optional.ofNullable(snapshots.get(id));
  }

  SortedMap<Long, String> snapshots() {
    return java.util.Collections.unmodifiableSortedMap(snapshots);
  }

  Map<Long, String> lostManifests() {
    return java.util.Collections.unmodifiableMap(lostManifests);
  }

  List<String> catalog() {
    return List.copyOf(catalog);
  }

  /** The manifest with its {@code damage} set if the snapshot is known to be damaged. */
  SnapshotManifest mark(SnapshotManifest m) {
    String reason = snapshots.get(m.getSnapshotId());
    return reason == null ? m : m.toBuilder().setDamage(reason).build();
  }

  private static String cut(String reason) {
    String r = String.valueOf(reason);
    return r.length() <= MAX_REASON ? r : r.substring(0, MAX_REASON - 3) + "...";
  }
}
