package io.cutpoint.cut;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Read-only sorted copies, for the records of a cut. {@code Collections.unmodifiableSortedMap} and
 * {@code unmodifiableSortedSet} would do on the JVM, but TeaVM's class library (the playground runs
 * this package in the browser) has neither; these views need only the core collections. Every
 * mutator, including through views, iterators and entries, throws {@link
 * UnsupportedOperationException}.
 */
@SuppressWarnings("JdkObsolete") // Cut and LocalSnapshot's components are SortedMap and SortedSet
final class SortedCopies {

  private SortedCopies() {}

  /** A read-only copy of {@code map}, in its keys' natural order. */
  static <K, V> SortedMap<K, V> map(Map<K, V> map) {
    return new ReadOnlyMap<>(new TreeMap<>(map));
  }

  /** A read-only copy of {@code set}, in natural order. */
  static <E> SortedSet<E> set(Collection<E> set) {
    return new ReadOnlySet<>(new TreeSet<>(set));
  }

  private static final class ReadOnlyMap<K, V> extends AbstractMap<K, V>
      implements SortedMap<K, V> {
    private final SortedMap<K, V> m;

    ReadOnlyMap(SortedMap<K, V> m) {
      this.m = m;
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
      return new AbstractSet<>() {
        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
          Iterator<Map.Entry<K, V>> it = m.entrySet().iterator();
          return new Iterator<>() {
            @Override
            public boolean hasNext() {
              return it.hasNext();
            }

            @Override
            public Map.Entry<K, V> next() {
              Map.Entry<K, V> e = it.next();
              return new AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getValue());
            }
          };
        }

        @Override
        public int size() {
          return m.size();
        }
      };
    }

    @Override
    public int size() {
      return m.size();
    }

    @Override
    public boolean containsKey(Object key) {
      return m.containsKey(key);
    }

    @Override
    public V get(Object key) {
      return m.get(key);
    }

    @Override
    public Comparator<? super K> comparator() {
      return m.comparator();
    }

    @Override
    public SortedMap<K, V> subMap(K fromKey, K toKey) {
      return new ReadOnlyMap<>(m.subMap(fromKey, toKey));
    }

    @Override
    public SortedMap<K, V> headMap(K toKey) {
      return new ReadOnlyMap<>(m.headMap(toKey));
    }

    @Override
    public SortedMap<K, V> tailMap(K fromKey) {
      return new ReadOnlyMap<>(m.tailMap(fromKey));
    }

    @Override
    public K firstKey() {
      return m.firstKey();
    }

    @Override
    public K lastKey() {
      return m.lastKey();
    }
  }

  private static final class ReadOnlySet<E> extends AbstractSet<E> implements SortedSet<E> {
    private final SortedSet<E> s;

    ReadOnlySet(SortedSet<E> s) {
      this.s = s;
    }

    @Override
    public Iterator<E> iterator() {
      Iterator<E> it = s.iterator();
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public E next() {
          return it.next();
        }
      };
    }

    @Override
    public int size() {
      return s.size();
    }

    @Override
    public boolean contains(Object o) {
      return s.contains(o);
    }

    @Override
    public Comparator<? super E> comparator() {
      return s.comparator();
    }

    @Override
    public SortedSet<E> subSet(E from, E to) {
      return new ReadOnlySet<>(s.subSet(from, to));
    }

    @Override
    public SortedSet<E> headSet(E to) {
      return new ReadOnlySet<>(s.headSet(to));
    }

    @Override
    public SortedSet<E> tailSet(E from) {
      return new ReadOnlySet<>(s.tailSet(from));
    }

    @Override
    public E first() {
      return s.first();
    }

    @Override
    public E last() {
      return s.last();
    }
  }
}
