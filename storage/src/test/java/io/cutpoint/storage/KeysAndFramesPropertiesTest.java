package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.cut.ChannelId;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

class KeysAndFramesPropertiesTest {

  @Property
  void keysOrderBySnapshotIdFirst(
      @ForAll @LongRange(min = 1) long a,
      @ForAll @LongRange(min = 1) long b,
      @ForAll @StringLength(max = 20) String w1,
      @ForAll @StringLength(max = 20) String w2,
      @ForAll @IntRange(min = 0) int i1,
      @ForAll @IntRange(min = 0) int i2) {
    int byKey = Arrays.compareUnsigned(Keys.stateChunk(a, w1, i1), Keys.stateChunk(b, w2, i2));
    if (a != b) {
      assertThat(Integer.signum(byKey)).isEqualTo(Long.signum(Long.compare(a, b)));
    }
  }

  @Property
  void chunksOfAWorkerOrderByIndexAndStayInsideItsPrefix(
      @ForAll @LongRange(min = 1) long id,
      @ForAll @StringLength(max = 20) String w,
      @ForAll @StringLength(max = 20) String other,
      @ForAll @IntRange(min = 0) int i1,
      @ForAll @IntRange(min = 0) int i2) {
    byte[] prefix = Keys.worker(id, w);
    byte[] end = Keys.prefixEnd(prefix);
    byte[] k1 = Keys.stateChunk(id, w, i1);
    assertThat(Arrays.compareUnsigned(k1, prefix)).isGreaterThanOrEqualTo(0);
    assertThat(Arrays.compareUnsigned(k1, end)).isNegative();
    assertThat(Integer.signum(Arrays.compareUnsigned(k1, Keys.stateChunk(id, w, i2))))
        .isEqualTo(Integer.signum(Integer.compare(i1, i2)));
    assertThat(Keys.chunkIndexOf(k1)).isEqualTo(i1);
    assertThat(Keys.workerOf(k1)).isEqualTo(w);
    if (!other.equals(w)) {
      byte[] foreign = Keys.stateChunk(id, other, i2);
      boolean inside =
          Arrays.compareUnsigned(foreign, prefix) >= 0 && Arrays.compareUnsigned(foreign, end) < 0;
      assertThat(inside).as("chunk of %s inside the range of %s", other, w).isFalse();
    }
  }

  @Property
  void channelKeysDecodeToTheirChannel(
      @ForAll @LongRange(min = 1) long id,
      @ForAll @StringLength(min = 1, max = 20) String from,
      @ForAll @StringLength(min = 1, max = 20) String to,
      @ForAll @LongRange(min = 1) long seq) {
    byte[] key = Keys.channelBatch(id, ChannelId.of(from, to), seq);
    assertThat(Keys.snapshotIdOf(key)).isEqualTo(id);
    assertThat(Keys.channelOf(key)).isEqualTo(ChannelId.of(from, to));
    assertThat(Keys.batchSeqOf(key)).isEqualTo(seq);
    assertThat(Keys.workerOf(key)).isEqualTo(to);
  }

  @Property
  void framesRoundTrip(
      @ForAll @Size(max = 200) byte[] key, @ForAll @Size(max = 500) byte[] payload) {
    assertThat(ValueFrames.unwrap(key, ValueFrames.wrap(key, payload), () -> "piece"))
        .isEqualTo(payload);
    // the one-pass check gives the payload's own CRC32C, however the frame was made
    assertThat(ValueFrames.payloadCrc(key, ValueFrames.wrap(key, payload), () -> "piece"))
        .isEqualTo(io.cutpoint.api.Crc32c.of(payload));
    assertThat(
            ValueFrames.payloadCrc(
                key,
                ValueFrames.wrap(key, payload, io.cutpoint.api.Crc32c.of(payload)),
                () -> "piece"))
        .isEqualTo(io.cutpoint.api.Crc32c.of(payload));
  }

  @Property
  void anySingleBitFlipIsDetected(
      @ForAll @Size(min = 1, max = 50) byte[] key,
      @ForAll @Size(max = 500) byte[] payload,
      @ForAll @IntRange(min = 0, max = 10_000) int where,
      @ForAll @IntRange(min = 0, max = 7) int bit) {
    byte[] value = ValueFrames.wrap(key, payload);
    value[where % value.length] ^= (byte) (1 << bit);
    assertThatThrownBy(() -> ValueFrames.unwrap(key, value, () -> "snapshot 1, piece"))
        .isInstanceOf(CorruptionException.class)
        .hasMessageStartingWith("snapshot 1, piece: ");
    assertThatThrownBy(() -> ValueFrames.payloadCrc(key, value, () -> "snapshot 1, piece"))
        .isInstanceOf(CorruptionException.class)
        .hasMessageStartingWith("snapshot 1, piece: ");
  }

  @Property
  void aValueUnderAnotherKeyIsDetected(
      @ForAll @Size(min = 1, max = 50) byte[] key,
      @ForAll @Size(min = 1, max = 50) byte[] other,
      @ForAll @Size(max = 100) byte[] payload) {
    if (Arrays.equals(key, other)) {
      return;
    }
    byte[] value = ValueFrames.wrap(key, payload);
    assertThatThrownBy(() -> ValueFrames.unwrap(other, value, () -> "piece"))
        .isInstanceOf(CorruptionException.class);
    assertThatThrownBy(() -> ValueFrames.payloadCrc(other, value, () -> "piece"))
        .isInstanceOf(CorruptionException.class);
  }
}
