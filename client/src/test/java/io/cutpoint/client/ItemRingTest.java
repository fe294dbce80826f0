package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.Item;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class ItemRingTest {

  /** Any mix of appends and head drops leaves the ring equal to a plain deque. */
  @Property(tries = 200)
  void behavesLikeADeque(
      @ForAll @Size(max = 200) List<@IntRange(min = -40, max = 60) Integer> ops) {
    ItemRing ring = new ItemRing(4);
    ArrayDeque<Item> model = new ArrayDeque<>();
    long position = 0;
    for (int op : ops) {
      if (op >= 0) {
        for (int i = 0; i <= op % 7; i++) {
          Item item = Item.newBuilder().setPosition(++position).build();
          ring.add(item);
          model.add(item);
        }
      } else {
        int n = Math.min(-op, model.size());
        ring.dropFirst(n);
        for (int i = 0; i < n; i++) {
          model.poll();
        }
      }
      List<Item> seen = new ArrayList<>();
      for (int i = 0; i < ring.size(); i++) {
        seen.add(ring.get(i));
      }
      assertThat(seen).containsExactlyElementsOf(model);
    }
  }

  @Example
  void outOfRangeAccessFails() {
    ItemRing ring = new ItemRing(2);
    ring.add(Item.getDefaultInstance());
    assertThatThrownBy(() -> ring.get(1)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> ring.dropFirst(2)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
