package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cutpoint.api.v1.SnapshotManifest;

/**
 * The store's readers on damaged bytes. Property: a stored value either yields exactly the payload
 * it was written with, or fails with {@link CorruptionException}; nothing else is thrown and
 * nothing unchecked is returned. Runs over the committed corpus in {@code mvn verify} and fuzzes
 * with {@code JAZZER_FUZZ=1}.
 */
class StoreReadersFuzzTest {

  @FuzzTest(maxDuration = "5m")
  void unwrapReturnsOnlyCheckedPayloads(FuzzedDataProvider data) {
    byte[] key = data.consumeBytes(data.consumeInt(0, 40));
    byte[] value = data.consumeRemainingAsBytes();
    byte[] payload;
    try {
      payload = ValueFrames.unwrap(key, value, () -> "fuzzed piece");
    } catch (CorruptionException e) {
      assertThat(e).hasMessageStartingWith("fuzzed piece: ");
      return;
    }
    // Accepted: it must be exactly the frame of that payload under that key.
    assertThat(ValueFrames.wrap(key, payload)).isEqualTo(value);
  }

  @FuzzTest(maxDuration = "5m")
  void aDamagedManifestIsReadExactlyOrReportedAsCorruption(FuzzedDataProvider data) {
    long id = 1 + (data.consumeLong() & 0x7fff_ffff_ffffL);
    SnapshotManifest original =
        SnapshotManifest.newBuilder()
            .setSnapshotId(id)
            .setReason(data.consumeString(64))
            .setPinned(data.consumeBoolean())
            .build();
    byte[] key = Keys.snapshot(id);
    byte[] stored = ValueFrames.wrap(key, original.toByteArray());
    // Damage: flip bits, truncate, or (with a valid frame) hand the parser arbitrary bytes.
    int mode = data.consumeInt(0, 2);
    if (mode == 0) {
      int flips = data.consumeInt(0, 4);
      for (int i = 0; i < flips; i++) {
        stored[data.consumeInt(0, stored.length - 1)] ^= (byte) data.consumeInt(1, 255);
      }
    } else if (mode == 1) {
      stored = java.util.Arrays.copyOf(stored, data.consumeInt(0, stored.length));
    } else {
      stored = ValueFrames.wrap(key, data.consumeRemainingAsBytes());
    }
    SnapshotManifest read;
    try {
      read = StoreReader.parseManifest(key, stored);
    } catch (CorruptionException e) {
      assertThat(e).hasMessageStartingWith("snapshot " + id + ", manifest: ");
      return;
    }
    if (mode != 2) {
      assertThat(read).isEqualTo(original);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void damagedKeysAreDescribedNeverThrown(FuzzedDataProvider data) {
    byte[] key = data.consumeRemainingAsBytes();
    for (String kind : new String[] {"state", "channel", "metadata"}) {
      assertThat(StoreReader.describeKey(7, kind, key)).startsWith("snapshot 7, ");
    }
  }
}
