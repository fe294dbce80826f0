package io.cutpoint.server.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.cut.ChannelId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class InitiatorSelectionTest {

  private static ChannelId c(String from, String to) {
    return ChannelId.of(from, to);
  }

  @Test
  void aRingNeedsOneInitiatorItsSmallestWorker() {
    assertThat(
            InitiatorSelection.select(
                List.of("c", "a", "b"), List.of(c("a", "b"), c("b", "c"), c("c", "a"))))
        .containsExactly("a");
  }

  @Test
  void aLineStartsAtItsHead() {
    assertThat(InitiatorSelection.select(List.of("a", "b", "c"), List.of(c("b", "a"), c("c", "b"))))
        .containsExactly("c");
  }

  @Test
  void aDagNeedsEverySource() {
    // s1 -> m, s2 -> m, m -> t, s1 -> t
    assertThat(
            InitiatorSelection.select(
                List.of("s1", "s2", "m", "t"),
                List.of(c("s1", "m"), c("s2", "m"), c("m", "t"), c("s1", "t"))))
        .containsExactly("s1", "s2");
  }

  @Test
  void disconnectedPartsAndIsolatedWorkersEachGetAnInitiator() {
    assertThat(
            InitiatorSelection.select(
                List.of("a", "b", "x", "y", "lonely"),
                List.of(c("a", "b"), c("b", "a"), c("x", "y"))))
        .containsExactly("a", "lonely", "x");
  }

  @Test
  void aCycleFedByASourceIsReachedFromTheSource() {
    // src -> a <-> b
    assertThat(
            InitiatorSelection.select(
                List.of("a", "b", "src"), List.of(c("src", "a"), c("a", "b"), c("b", "a"))))
        .containsExactly("src");
  }

  @Test
  void aRequesterInitiatesAlongsideTheSourcesItCannotReach() {
    List<ChannelId> channels = List.of(c("s1", "m"), c("s2", "m"));
    assertThat(InitiatorSelection.selectWith(List.of("s1", "s2", "m"), channels, "m"))
        .containsExactly("m", "s1", "s2");
    assertThat(InitiatorSelection.selectWith(List.of("s1", "s2", "m"), channels, "s2"))
        .containsExactly("s1", "s2");
  }

  @Property(tries = 200)
  void everyWorkerIsReachableFromAnInitiator(
      @ForAll @IntRange(min = 1, max = 9) int n,
      @ForAll List<@IntRange(min = 0, max = 80) Integer> edges) {
    List<String> workers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      workers.add("w" + i);
    }
    Set<ChannelId> channels = new HashSet<>();
    for (int e : edges) {
      int from = e % n;
      int to = (e / n) % n;
      if (from != to) {
        channels.add(c("w" + from, "w" + to));
      }
    }
    SortedSet<String> initiators = InitiatorSelection.select(workers, channels);
    assertThat(reachable(initiators, channels)).containsExactlyInAnyOrderElementsOf(workers);
    // minimal: dropping any initiator leaves some worker unreachable
    for (String i : initiators) {
      Set<String> fewer = new HashSet<>(initiators);
      fewer.remove(i);
      assertThat(reachable(fewer, channels)).hasSizeLessThan(n);
    }
  }

  private static Set<String> reachable(Collection<String> from, Collection<ChannelId> channels) {
    Set<String> seen = new HashSet<>(from);
    ArrayDeque<String> todo = new ArrayDeque<>(from);
    while (!todo.isEmpty()) {
      String w = todo.poll();
      for (ChannelId ch : channels) {
        if (ch.from().equals(w) && seen.add(ch.to())) {
          todo.add(ch.to());
        }
      }
    }
    return seen;
  }
}
