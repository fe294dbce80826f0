package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.LongStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The counts that {@link ChunkRuns} keeps up to date through commits and deletions in any order are
 * those of the whole sequence counted afresh; with unreadable snapshots they are never below them.
 */
class ChunkRunsPropertiesTest {

  private static final List<ByteString> CHUNKS =
      List.of("a", "b", "c", "d", "e", "f").stream().map(ByteString::copyFromUtf8).toList();

  /** How a commit changes the counts: {@link ChunkRuns#insert}, or a broken variant. */
  interface Insert {
    Map<ByteString, Integer> apply(Set<ByteString> n, Set<ByteString> p, Set<ByteString> q);
  }

  @Property(tries = 2000)
  void countsKeptUpToDateAreTheRunsOfTheSequence(@ForAll long seed) {
    assertThat(play(seed, ChunkRuns::insert, 0.0)).isNull();
  }

  @Property(tries = 2000)
  void withUnreadableSnapshotsNoCountFallsBelowTheRunsAndNoUsedChunkIsReleased(@ForAll long seed) {
    assertThat(play(seed, ChunkRuns::insert, 0.2)).isNull();
  }

  @Test
  void theCheckFindsACommitThatDoesNotCountTheRunItSplits() {
    Insert noSplit =
        (n, p, q) -> {
          Map<ByteString, Integer> d = ChunkRuns.insert(n, p, q);
          d.keySet().removeIf(c -> !n.contains(c)); // forgets the runs that n splits
          return d;
        };
    assertThat(LongStream.range(0, 200).mapToObj(seed -> play(seed, noSplit, 0.0)))
        .anyMatch(failure -> failure != null);
  }

  @Test
  void aCommitBetweenTwoUnreadableSnapshotsIsRefused() {
    assertThatThrownBy(() -> ChunkRuns.insert(Set.of(CHUNKS.get(0)), null, null))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("cannot be counted");
  }

  @Test
  void aSnapshotThatUsesWhatTheOneBeforeUsedChangesNoCount() {
    Set<ByteString> same = Set.of(CHUNKS.get(0), CHUNKS.get(1));
    assertThat(ChunkRuns.insert(same, same, Set.of())).isEmpty();
    assertThat(ChunkRuns.insert(Set.of(CHUNKS.get(0), CHUNKS.get(2)), same, Set.of()))
        .isEqualTo(Map.of(CHUNKS.get(2), 1));
  }

  /**
   * Random commits (each at a random place in the id order) and deletions; with probability {@code
   * unreadable} a snapshot's set cannot be read after its commit. Returns what went wrong, or null.
   */
  static String play(long seed, Insert insert, double unreadable) {
    Random random = new Random(seed);
    TreeMap<Long, Set<ByteString>> kept = new TreeMap<>();
    Set<Long> unknown = new HashSet<>();
    Map<ByteString, Long> counts = new HashMap<>();
    for (int step = 0; step < 40; step++) {
      if (!kept.isEmpty() && random.nextInt(3) == 0) {
        List<Long> ids = new ArrayList<>(kept.keySet());
        long id = ids.get(random.nextInt(ids.size()));
        Map<ByteString, Integer> d =
            ChunkRuns.remove(
                known(kept, unknown, id),
                known(kept, unknown, kept.lowerKey(id)),
                known(kept, unknown, kept.higherKey(id)));
        kept.remove(id);
        apply(counts, d);
      } else {
        long id = 1 + random.nextInt(1000);
        if (kept.containsKey(id)) {
          continue;
        }
        Set<ByteString> n = new HashSet<>();
        for (ByteString c : CHUNKS) {
          if (random.nextInt(3) > 0) {
            n.add(c);
          }
        }
        Map<ByteString, Integer> d;
        try {
          d =
              insert.apply(
                  n,
                  known(kept, unknown, kept.lowerKey(id)),
                  known(kept, unknown, kept.higherKey(id)));
        } catch (StoreException refused) {
          continue;
        }
        kept.put(id, n);
        apply(counts, d);
        if (random.nextDouble() < unreadable) {
          unknown.add(id);
        }
      }
      String wrong = check(kept, counts, unknown.isEmpty());
      if (wrong != null) {
        return "seed " + seed + ", step " + step + ": " + wrong;
      }
    }
    return null;
  }

  private static Set<ByteString> known(
      TreeMap<Long, Set<ByteString>> kept, Set<Long> unknown, Long id) {
    if (id == null) {
      return Set.of();
    }
    return unknown.contains(id) ? null : kept.get(id);
  }

  private static void apply(Map<ByteString, Long> counts, Map<ByteString, Integer> delta) {
    delta.forEach((c, d) -> counts.merge(c, (long) d, Long::sum));
  }

  private static String check(
      TreeMap<Long, Set<ByteString>> kept, Map<ByteString, Long> counts, boolean exact) {
    ChunkRuns.Counts truth = ChunkRuns.count(new ArrayList<>(kept.values()));
    for (ByteString c : CHUNKS) {
      long have = counts.getOrDefault(c, 0L);
      long want = truth.of(c);
      if (exact ? have != want : have < want) {
        return c.toStringUtf8() + " counted " + have + ", runs " + want + " in " + kept;
      }
    }
    return null;
  }
}
