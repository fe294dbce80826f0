package io.cutpoint.cut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

@SuppressWarnings("JdkObsolete") // the copies are SortedMap and SortedSet, as Cut's components
class SortedCopiesTest {

  @Test
  void aMapCopyIsSortedEqualAndReadOnlyThroughEveryView() {
    Map<String, Long> source = new TreeMap<>(Map.of("b", 2L, "a", 1L, "c", 3L));
    SortedMap<String, Long> copy = SortedCopies.map(source);
    source.put("d", 4L);

    assertThat(copy).isEqualTo(Map.of("a", 1L, "b", 2L, "c", 3L));
    assertThat(copy.hashCode()).isEqualTo(Map.of("a", 1L, "b", 2L, "c", 3L).hashCode());
    assertThat(copy.keySet()).containsExactly("a", "b", "c");
    assertThat(copy.firstKey()).isEqualTo("a");
    assertThat(copy.headMap("c").keySet()).containsExactly("a", "b");
    assertThatThrownBy(() -> copy.put("e", 5L)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> copy.remove("a")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(copy::clear).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> copy.keySet().remove("a"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> copy.entrySet().iterator().next().setValue(9L))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> copy.tailMap("b").put("z", 1L))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(copy).hasSize(3);
  }

  @Test
  void aSetCopyIsSortedEqualAndReadOnly() {
    SortedSet<String> copy = SortedCopies.set(Set.of("b", "c", "a"));

    assertThat(copy).containsExactly("a", "b", "c").isEqualTo(Set.of("a", "b", "c"));
    assertThat(copy.last()).isEqualTo("c");
    assertThat(copy.subSet("a", "c")).containsExactly("a", "b");
    assertThatThrownBy(() -> copy.add("d")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> copy.remove("a")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(
            () -> {
              var it = copy.iterator();
              it.next();
              it.remove();
            })
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> copy.headSet("c").clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
