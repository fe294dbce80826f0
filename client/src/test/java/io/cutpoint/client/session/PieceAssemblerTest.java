package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.UploadTrailer;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class PieceAssemblerTest {

  private final byte[] state = Pieces.state(2500, 3);
  private final List<DownloadPart> good =
      Pieces.asDownload(Pieces.uploadParts(Pieces.completed(9, state), 2, 1000));

  @Test
  void reassemblesCountersRecordingsAndStateOfAnUpload() throws Exception {
    PieceAssembler.Restorable r = assemble(good);
    LocalSnapshot expected = Pieces.cut(9, "a");
    assertThat(r.state()).isEqualTo(state);
    assertThat(r.piece()).isEqualTo(expected);
    assertThat(r.meta().getEpoch()).isEqualTo(2);
  }

  @Test
  void refusesAChunkWhoseBytesDoNotMatchItsCrc() {
    assertCorrupt(
        with(
            2,
            p -> {
              byte[] data = p.getStateChunk().getData().toByteArray();
              data[17] ^= 1;
              return p.toBuilder()
                  .setStateChunk(p.getStateChunk().toBuilder().setData(ByteString.copyFrom(data)))
                  .build();
            }),
        "state chunk 1 has CRC32C");
  }

  @Test
  void refusesAStateWhoseWholeCrcDiffersFromTheHeader() {
    // Every chunk is self-consistent, but the header's whole-state CRC is wrong.
    assertCorrupt(withMeta(m -> m.setStateCrc32C(m.getStateCrc32C() + 1)), "the header declares");
  }

  @Test
  void refusesAHeaderWhoseStateIsLargerThanOneArrayAlsoBeyondTheSignedRange() {
    for (long bytes : new long[] {Integer.MAX_VALUE + 1L, -1L, Long.MIN_VALUE}) {
      // state_bytes is a uint64: 2^63 and above read as negative longs, which passed the check
      assertCorrupt(withMeta(m -> m.setStateBytes(bytes)), "bytes is larger than one array");
    }
  }

  @Test
  void refusesMissingReorderedOrExtraParts() {
    List<DownloadPart> missing = new ArrayList<>(good);
    missing.remove(2);
    assertCorrupt(missing, "out of order, expected 1");

    List<DownloadPart> swapped = new ArrayList<>(good);
    swapped.set(1, good.get(2));
    swapped.set(2, good.get(1));
    assertCorrupt(swapped, "out of order");

    List<DownloadPart> headless = new ArrayList<>(good.subList(1, good.size()));
    assertCorrupt(headless, "expected HEADER");

    List<DownloadPart> noTrailer = new ArrayList<>(good.subList(0, good.size() - 1));
    assertCorrupt(noTrailer, "without a trailer");

    List<DownloadPart> extra = new ArrayList<>(good);
    extra.add(good.get(1));
    assertCorrupt(extra, "after the trailer");
  }

  @Test
  void refusesAPieceOfAnotherWorkerOrSnapshot() {
    assertCorrupt(withMeta(m -> m.setWorkerId("x")), "worker 'x'");
  }

  @Test
  void refusesTrailerCountsThatDisagree() {
    assertCorrupt(
        with(
            good.size() - 1,
            p ->
                p.toBuilder()
                    .setTrailer(
                        UploadTrailer.newBuilder().setStateChunks(3).setRecordedMessages(99))
                    .build()),
        "99 messages");
  }

  @Test
  void refusesRecordedMessagesOutOfSequenceOrder() {
    int channelB = good.size() - 2;
    assertCorrupt(
        with(
            channelB,
            p ->
                p.toBuilder()
                    .setChannel(
                        p.getChannel().toBuilder().setMessages(1, p.getChannel().getMessages(0)))
                    .build()),
        "message #11 after #11");
  }

  @Test
  void refusesAStateLargerThanDeclared() {
    assertCorrupt(withMeta(m -> m.setStateBytes(2000)), "overruns the declared 2000 bytes");
  }

  /** The good download with its header's meta changed. */
  private List<DownloadPart> withMeta(UnaryOperator<LocalSnapshotMeta.Builder> change) {
    return with(
        0,
        p ->
            p.toBuilder()
                .setHeader(
                    p.getHeader().toBuilder()
                        .setMeta(change.apply(p.getHeader().getMeta().toBuilder())))
                .build());
  }

  private List<DownloadPart> with(int index, UnaryOperator<DownloadPart> change) {
    List<DownloadPart> parts = new ArrayList<>(good);
    parts.set(index, change.apply(parts.get(index)));
    return parts;
  }

  private static PieceAssembler.Restorable assemble(List<DownloadPart> parts)
      throws CorruptPieceException {
    PieceAssembler a = new PieceAssembler(9, "w");
    for (DownloadPart p : parts) {
      a.accept(p);
    }
    return a.finish();
  }

  private static void assertCorrupt(List<DownloadPart> parts, String message) {
    assertThatThrownBy(() -> assemble(parts))
        .isInstanceOf(CorruptPieceException.class)
        .hasMessageContaining(message);
  }
}
