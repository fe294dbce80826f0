package io.cutpoint.storage;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.SnapshotManifest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
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
  private final Set<ByteString> chunks = ConcurrentHashMap.newKeySet();

  /** Marks a snapshot damaged; the first reason found is kept. */
  void snapshot(long id, String reason) {
    snapshots.putIfAbsent(id, cut(reason));
  }

  /**
   * Marks a snapshot damaged by what a read or check of it found; a content chunk found missing or
   * bad is remembered too ({@link #chunkDamaged}).
   */
  void snapshot(long id, CorruptionException found) {
    snapshot(id, found.getMessage(), found);
  }

  /** As {@link #snapshot(long, CorruptionException)}, with the reason told another way. */
  void snapshot(long id, String reason, CorruptionException found) {
    snapshot(id, reason);
    if (found instanceof ChunkDamageException c) {
      chunks.add(c.sha256());
    }
  }

  /**
   * Whether a read found this content chunk missing or bad, and no upload has stored it again
   * since: new snapshots must not count on it as held.
   */
  boolean chunkDamaged(ByteString sha256) {
    return chunks.contains(sha256);
  }

  /** The chunk's bytes were stored again. */
  void chunkStored(ByteString sha256) {
    chunks.remove(sha256);
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
