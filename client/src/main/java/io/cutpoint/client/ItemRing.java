package io.cutpoint.client;

import io.cutpoint.api.v1.Item;

/** A growable ring of items in position order: appended at the tail, dropped from the head. */
final class ItemRing {

  private Item[] items;
  private int head;
  private int size;

  ItemRing(int initialCapacity) {
    items = new Item[Integer.highestOneBit(Math.max(16, initialCapacity - 1)) << 1];
  }

  int size() {
    return size;
  }

  void add(Item item) {
    if (size == items.length) {
      Item[] bigger = new Item[items.length << 1];
      for (int i = 0; i < size; i++) {
        bigger[i] = get(i);
      }
      items = bigger;
      head = 0;
    }
    items[(head + size) & (items.length - 1)] = item;
    size++;
  }

  /** The {@code i}-th item from the head. */
  Item get(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException(i + " of " + size);
    }
    return items[(head + i) & (items.length - 1)];
  }

  void dropFirst(int n) {
    if (n > size) {
      throw new IndexOutOfBoundsException(n + " of " + size);
    }
    for (int i = 0; i < n; i++) {
      items[head] = null;
      head = (head + 1) & (items.length - 1);
    }
    size -= n;
  }

  void clear() {
    dropFirst(size);
    head = 0;
  }
}
