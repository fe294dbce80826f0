package io.cutpoint.client.chunks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.Sha256;
import java.io.ByteArrayOutputStream;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A keyed state's chunks: they join into the state's bytes, which decode back into the entries;
 * their boundaries fall between entries and depend on the entries alone, so a few changed entries
 * change a few chunks; and a capture reads and hashes only the chunks whose entries changed.
 */
class KeyedChunksTest {
  private static final ContentChunker CHUNKER = ContentChunker.defaults();

  /** {@code n} entries "key-000000".. with values of 500 to 1,500 random bytes. */
  private static TreeMap<String, byte[]> entries(int n, long seed) {
    Random random = new Random(seed);
    TreeMap<String, byte[]> map = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      byte[] value = new byte[500 + random.nextInt(1000)];
      random.nextBytes(value);
      map.put(String.format("key-%06d", i), value);
    }
    return map;
  }

  private static byte[] joined(StateContent content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < content.recipe().size(); i++) {
      out.writeBytes(content.chunk(i).toByteArray());
    }
    return out.toByteArray();
  }

  private static Set<String> hashes(StateContent content) {
    Set<String> out = new HashSet<>();
    content.recipe().forEach(c -> out.add(c.hex()));
    return out;
  }

  @Test
  void theChunksJoinIntoTheStateBytesWhichDecodeBackIntoTheEntries() {
    TreeMap<String, byte[]> map = entries(5_000, 1);
    KeyedState state = KeyedState.of(map);
    StateContent content = new KeyedChunks(CHUNKER).content(state);
    byte[] bytes = joined(content);
    assertThat(bytes).isEqualTo(state.toBytes());
    assertThat(content.size()).isEqualTo(bytes.length);
    assertThat(content.crc32c()).isEqualTo(Crc32c.of(bytes));
    for (ChunkRef c : content.recipe()) {
      byte[] chunk = java.util.Arrays.copyOfRange(bytes, c.offset(), c.end());
      assertThat(c.sha256()).isEqualTo(Sha256.of(chunk));
      assertThat(c.crc32c()).isEqualTo(Crc32c.of(chunk));
      assertThat(c.length()).isLessThanOrEqualTo(CHUNKER.maxSize());
    }
    double mean = (double) bytes.length / content.recipe().size();
    assertThat(mean).isBetween(0.6 * CHUNKER.avgSize(), 1.6 * CHUNKER.avgSize());
    SortedMap<String, byte[]> decoded = KeyedState.decode(bytes);
    assertThat(decoded.keySet()).containsExactlyElementsOf(map.keySet());
    map.forEach((k, v) -> assertThat(decoded.get(k)).isEqualTo(v));
  }

  /**
   * Half a character cannot be put in UTF-8: three keys that differ only there would restore as
   * one. They are refused when the state is handed over, and a whole character is kept.
   */
  @Test
  void aKeyWithALoneSurrogateIsRefusedAndAWholeCharacterRoundTrips() {
    for (String bad : new String[] {"user-\uD83D", "user-\uDE00", "\uDE00\uD83D"}) {
      TreeMap<String, byte[]> map = new TreeMap<>();
      map.put("user-?", new byte[] {1});
      map.put(bad, new byte[] {2});
      assertThatThrownBy(() -> KeyedState.of(map))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lone surrogate");
    }
    TreeMap<String, byte[]> whole = new TreeMap<>();
    whole.put("user-?", new byte[] {1});
    whole.put("user-\uD83D\uDE00", new byte[] {2});
    SortedMap<String, byte[]> back = KeyedState.decode(KeyedState.of(whole).toBytes());
    assertThat(back.keySet()).containsExactlyElementsOf(whole.keySet());
  }

  @Test
  void aCaptureReadsAndHashesOnlyTheChunksWhoseEntriesChanged() {
    TreeMap<String, byte[]> map = entries(10_000, 2);
    KeyedChunks chunks = new KeyedChunks(CHUNKER);
    StateContent first = chunks.content(KeyedState.of(map));
    assertThat(chunks.bytesHashed()).isEqualTo(first.size());

    map.put("key-004321", new byte[] {1, 2, 3}); // a new array: the application's promise
    StateContent second = chunks.content(KeyedState.of(map));
    assertThat(chunks.bytesHashed())
        .as("one chunk read again")
        .isPositive()
        .isLessThanOrEqualTo(CHUNKER.maxSize());
    Set<String> fresh = hashes(second);
    fresh.removeAll(hashes(first));
    assertThat(fresh).hasSize(1);
    assertThat(joined(second)).isEqualTo(KeyedState.of(map).toBytes());

    StateContent third = chunks.content(KeyedState.of(map));
    assertThat(chunks.bytesHashed()).as("nothing changed, nothing read").isZero();
    assertThat(third.recipe()).isEqualTo(second.recipe());
  }

  /**
   * A capture that keeps the last one's chunks cuts exactly as a cutter that never saw the state
   * before: 80 rounds of random edits (values replaced, resized, grown past a chunk and shrunk
   * back; entries added, also after the last one, and removed; keys handed over as equal but new
   * strings), with small chunks so that edits meet every kind of boundary.
   */
  @Test
  void aCaptureThatKeepsChunksCutsAsACutterThatNeverSawTheStateBefore() {
    ContentChunker small = ContentChunker.of(1024, 4096, 16384);
    Random random = new Random(8);
    TreeMap<String, byte[]> map = entries(1_500, 8);
    KeyedChunks warm = new KeyedChunks(small);
    long hashed = 0;
    long total = 0;
    for (int round = 0; round < 80; round++) {
      int edits = 1 + random.nextInt(round % 10 == 0 ? 40 : 4);
      for (int e = 0; e < edits; e++) {
        edit(map, random);
      }
      KeyedState state = KeyedState.of(map);
      StateContent kept = warm.content(state);
      StateContent cold = new KeyedChunks(small).content(KeyedState.of(map));
      assertThat(kept.recipe()).as("round %d", round).isEqualTo(cold.recipe());
      assertThat(kept.crc32c()).isEqualTo(cold.crc32c());
      if (round % 8 == 0) {
        assertThat(joined(kept)).isEqualTo(state.toBytes());
      }
      hashed += warm.bytesHashed();
      total += kept.size();
    }
    assertThat(hashed).as("most chunks were kept, not read again").isLessThan(total / 4);
  }

  private static void edit(TreeMap<String, byte[]> map, Random random) {
    String[] keys = map.keySet().toArray(new String[0]);
    String key = keys[random.nextInt(keys.length)];
    switch (random.nextInt(7)) {
      case 0 -> map.put(key, bytes(random, 1 + random.nextInt(1500)));
      case 1 -> map.put(key, bytes(random, 17_000 + random.nextInt(30_000))); // past a chunk
      case 2 -> map.put(key + "+", bytes(random, 1 + random.nextInt(3000))); // a new entry
      case 3 -> map.put("zz-" + random.nextInt(1000), bytes(random, 900)); // after the last
      case 4 -> {
        if (map.size() > 100) {
          map.remove(key);
        }
      }
      case 5 -> { // an equal key that is another string; the same value array
        byte[] value = map.remove(key);
        map.put(new String(key.toCharArray()), value);
      }
      default -> { // a large entry shrunk back, if there is one
        map.entrySet().stream()
            .filter(x -> x.getValue().length > 16384)
            .findAny()
            .ifPresent(x -> x.setValue(bytes(random, 800)));
      }
    }
  }

  private static byte[] bytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  @Test
  void addingAndRemovingEntriesMovesOnlyTheChunksAroundThem() {
    TreeMap<String, byte[]> map = entries(10_000, 3);
    StateContent before = new KeyedChunks(CHUNKER).content(KeyedState.of(map));
    map.put("key-002000a", new byte[700]);
    map.remove("key-007000");
    StateContent after = new KeyedChunks(CHUNKER).content(KeyedState.of(map));
    Set<String> fresh = hashes(after);
    fresh.removeAll(hashes(before));
    assertThat(fresh).as("at most two chunks around each edit").hasSizeLessThanOrEqualTo(4);
    assertThat(before.recipe().size()).isGreaterThan(100);
  }

  @Test
  void anEntryLargerThanAChunkIsCutInsideItsValueAndKeptWhenUnchanged() {
    TreeMap<String, byte[]> map = entries(100, 4);
    byte[] big = new byte[3 << 20];
    new Random(5).nextBytes(big);
    map.put("key-000050x", big);
    KeyedChunks chunks = new KeyedChunks(CHUNKER);
    StateContent first = chunks.content(KeyedState.of(map));
    assertThat(first.recipe().size()).isGreaterThan(10);
    assertThat(first.recipe())
        .allMatch(c -> c.length() <= CHUNKER.maxSize() + KeyedState.MAX_KEY_BYTES + 10);
    assertThat(joined(first)).isEqualTo(KeyedState.of(map).toBytes());

    map.put("key-000001", new byte[] {9});
    chunks.content(KeyedState.of(map));
    assertThat(chunks.bytesHashed()).isLessThan(CHUNKER.maxSize());
  }

  @Test
  void anEmptyStateIsItsFormatByteAlone() {
    StateContent content = new KeyedChunks(CHUNKER).content(KeyedState.of(new TreeMap<>()));
    assertThat(joined(content)).containsExactly(KeyedState.FORMAT);
    assertThat(KeyedState.decode(joined(content))).isEmpty();
  }

  @Test
  void keysUpToTheLimitInUtf8AreTakenAndEncodedAsUtf8AndLongerOnesRefused() {
    int max = KeyedState.MAX_KEY_BYTES;
    String euros = "\u20ac".repeat(max / 3); // 3 bytes each: just under the limit
    String emoji = "\ud83d\ude00".repeat(max / 4); // 2 chars, 4 bytes each: exactly the limit
    TreeMap<String, byte[]> taken = new TreeMap<>();
    taken.put("a".repeat(max), new byte[] {1});
    taken.put(euros, new byte[] {2});
    taken.put(emoji, new byte[] {3});
    taken.put("\u00e9t\u00e9", new byte[] {4});
    KeyedState state = KeyedState.of(taken);
    SortedMap<String, byte[]> decoded = KeyedState.decode(state.toBytes());
    assertThat(decoded.keySet()).containsExactlyElementsOf(taken.keySet());
    assertThat(joined(new KeyedChunks(CHUNKER).content(KeyedState.of(taken))))
        .isEqualTo(state.toBytes());
    for (String tooLong : java.util.List.of("a".repeat(max + 1), euros + "\u20ac", emoji + "x")) {
      TreeMap<String, byte[]> one = new TreeMap<>();
      one.put(tooLong, new byte[0]);
      assertThatThrownBy(() -> KeyedState.of(one))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("UTF-8 bytes; at most " + max);
    }
  }

  @Test
  void entriesInAnotherOrderAndBytesOfAnotherKindAreRefused() {
    TreeMap<String, byte[]> reversed = new TreeMap<>(Comparator.reverseOrder());
    reversed.put("a", new byte[1]);
    assertThatThrownBy(() -> KeyedState.of(reversed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("natural order");
    assertThatThrownBy(() -> KeyedState.decode(new byte[] {1, 2, 3}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not the bytes of a keyed state");
    byte[] cut = KeyedState.of(entries(3, 6)).toBytes();
    assertThatThrownBy(() -> KeyedState.decode(java.util.Arrays.copyOf(cut, cut.length - 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cut short");
  }
}
