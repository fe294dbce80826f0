package io.cutpoint.storage;

import com.google.protobuf.ByteString;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The reference count that the RocksDB store keeps per content chunk, as a pure function of the
 * committed snapshots (no I/O). Take the COMPLETE snapshots in id order, each as the set of chunks
 * it uses; a chunk's count is the number of its <em>runs</em>: maximal stretches of consecutive
 * snapshots that all use it. It is positive exactly while a kept snapshot uses the chunk, as a
 * count of snapshots would be, but a commit changes it only where the new snapshot differs from its
 * neighbours: a snapshot that uses what the one before used (most chunks of an incremental one)
 * costs nothing per such chunk.
 *
 * <p>Written as a sum over the sequence {@code S1, S2, ...}: {@code runs(c) = #{i : c in Si} - #{i
 * : c in Si and c in Si+1}}. Putting a snapshot {@code N} between its neighbours {@code P} and
 * {@code Q} (either may be absent: an empty set) adds {@code [N] - [P and N] - [N and Q] + [P and
 * Q]} to each chunk; taking {@code S} out from between them adds the negation. {@link #insert} and
 * {@link #remove} return these changes for the chunks where they are not zero.
 *
 * <p>A snapshot whose metadata cannot be read has an unknown set ({@code null}). Then the change
 * returned is never below the true one, so that a count never falls under the true number of runs,
 * and a chunk in use is never deleted; what this costs is chunks kept longer than needed (the same
 * as a count of snapshots, whose release of an unreadable snapshot releases nothing).
 */
final class ChunkRuns {

  private ChunkRuns() {}

  /**
   * The change of each count when {@code n} is committed between {@code p} and {@code q} (empty
   * when there is none; null when unknown). Never negative.
   *
   * @throws StoreException if both neighbours are unknown: no bound on the runs it splits is known
   */
  static Map<ByteString, Integer> insert(Set<ByteString> n, Set<ByteString> p, Set<ByteString> q) {
    Map<ByteString, Integer> delta = new HashMap<>();
    if (p == null && q == null) {
      throw new StoreException(
          "the metadata of both snapshots next to this one cannot be read: its chunks' references"
              + " cannot be counted");
    }
    if (p == null || q == null) {
      // The unknown neighbour's worst case: it used every chunk of the known one that this one
      // does not use (a run split) and none of this one's (a run begun).
      Set<ByteString> known = p == null ? q : p;
      for (ByteString c : alone(n, known, Set.of())) {
        delta.put(c, 1);
      }
      for (ByteString c : alone(known, n, Set.of())) {
        delta.put(c, 1);
      }
      return delta;
    }
    for (ByteString c : alone(n, p, q)) {
      delta.put(c, 1); // a run begins
    }
    for (ByteString c : bothBut(p, q, n)) {
      delta.put(c, 1); // n splits a run of p and q
    }
    return delta;
  }

  /**
   * The change of each count when {@code s} is deleted from between {@code p} and {@code q} (empty
   * when there is none; null when unknown). Nothing changes when any of the three is unknown: its
   * chunks stay referenced.
   */
  static Map<ByteString, Integer> remove(Set<ByteString> s, Set<ByteString> p, Set<ByteString> q) {
    Map<ByteString, Integer> delta = new HashMap<>();
    if (s == null || p == null || q == null) {
      return delta;
    }
    for (ByteString c : alone(s, p, q)) {
      delta.put(c, -1); // a run ends
    }
    for (ByteString c : bothBut(p, q, s)) {
      delta.put(c, -1); // two runs join
    }
    return delta;
  }

  /**
   * The counts of a whole sequence, in id order (null for an unknown set). An unknown set counts as
   * a run of every chunk, and its neighbours as not adjacent: the result is never below the true
   * number of runs, whatever the unknown sets hold.
   */
  record Counts(Map<ByteString, Long> runs, long unknown) {
    /** The count of {@code c}. */
    long of(ByteString c) {
      return runs.getOrDefault(c, 0L) + unknown;
    }
  }

  static Counts count(List<Set<ByteString>> inOrder) {
    Map<ByteString, Long> runs = new HashMap<>();
    long unknown = 0;
    Set<ByteString> previous = null;
    for (Set<ByteString> s : inOrder) {
      if (s == null) {
        unknown++;
      } else {
        for (ByteString c : s) {
          if (previous == null || !previous.contains(c)) {
            runs.merge(c, 1L, Long::sum);
          }
        }
      }
      previous = s;
    }
    return new Counts(runs, unknown);
  }

  /** The chunks that {@code p} and {@code q} use and {@code but} does not. */
  private static List<ByteString> bothBut(
      Set<ByteString> p, Set<ByteString> q, Set<ByteString> but) {
    Set<ByteString> smaller = p.size() <= q.size() ? p : q;
    Set<ByteString> larger = smaller == p ? q : p;
    List<ByteString> out = new java.util.ArrayList<>();
    for (ByteString c : smaller) {
      if (!but.contains(c) && larger.contains(c)) {
        out.add(c);
      }
    }
    return out;
  }

  /** The chunks of {@code x} that neither {@code p} nor {@code q} uses: runs of one snapshot. */
  private static List<ByteString> alone(Set<ByteString> x, Set<ByteString> p, Set<ByteString> q) {
    List<ByteString> out = new java.util.ArrayList<>();
    for (ByteString c : x) {
      if (!p.contains(c) && !q.contains(c)) {
        out.add(c);
      }
    }
    return out;
  }
}
