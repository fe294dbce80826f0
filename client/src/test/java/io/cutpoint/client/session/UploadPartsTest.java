package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.Activity;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.WaitFor;
import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.LocalSnapshot;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class UploadPartsTest {

  @Test
  void headerCarriesCountersStateSizeCrcAndDeclarations() {
    byte[] state = Pieces.state(2500, 1);
    LocalSnapshotMeta meta =
        Pieces.uploadParts(Pieces.completed(9, state), 4, 1000).get(0).getHeader().getMeta();
    CRC32C crc = new CRC32C();
    crc.update(state);
    assertThat(meta.getSnapshotId()).isEqualTo(9);
    assertThat(meta.getWorkerId()).isEqualTo("w");
    assertThat(meta.getEpoch()).isEqualTo(4);
    assertThat(meta.getSentList()).containsExactly(counter("a", 7), counter("c", 3));
    assertThat(meta.getReceivedList()).containsExactly(counter("a", 4), counter("b", 10));
    assertThat(meta.getStateBytes()).isEqualTo(2500);
    assertThat(Integer.toUnsignedLong(meta.getStateCrc32C())).isEqualTo(crc.getValue());
    assertThat(meta.getActivity()).isEqualTo(Activity.ACTIVITY_PASSIVE);
    assertThat(meta.getWaitingForList())
        .containsExactly(WaitFor.newBuilder().setPeer("b").setResource("lock-1").build());
    assertThat(meta.getRecordingMillis()).isEqualTo(5);
  }

  @Test
  void partsComeInWireOrderAndChunksReassembleWithTheirCrcs() {
    byte[] state = Pieces.state(2500, 2);
    List<UploadPart> parts = Pieces.uploadParts(Pieces.completed(9, state), 0, 1000);
    assertThat(parts)
        .extracting(UploadPart::getPartCase)
        .containsExactly(
            UploadPart.PartCase.HEADER,
            UploadPart.PartCase.STATE_CHUNK,
            UploadPart.PartCase.STATE_CHUNK,
            UploadPart.PartCase.STATE_CHUNK,
            UploadPart.PartCase.CHANNEL,
            UploadPart.PartCase.CHANNEL,
            UploadPart.PartCase.TRAILER);
    ByteArrayOutputStream joined = new ByteArrayOutputStream();
    for (int i = 1; i <= 3; i++) {
      var chunk = parts.get(i).getStateChunk();
      assertThat(chunk.getIndex()).isEqualTo(i - 1);
      byte[] data = chunk.getData().toByteArray();
      assertThat(chunk.getCrc32C()).isEqualTo(Crc32c.of(data));
      joined.writeBytes(data);
    }
    assertThat(parts.get(3).getStateChunk().getData().size()).isEqualTo(500);
    assertThat(joined.toByteArray()).isEqualTo(state);
    assertThat(parts.get(6).getTrailer().getStateChunks()).isEqualTo(3);
    assertThat(parts.get(6).getTrailer().getRecordedMessages()).isEqualTo(3);
  }

  @Test
  void everyIncomingChannelGetsAPartAndTheFirstMarkerChannelIsFlagged() {
    List<UploadPart> parts = Pieces.uploadParts(Pieces.completed(9, new byte[0]), 0, 1000);
    List<ChannelRecording> channels =
        parts.stream().filter(UploadPart::hasChannel).map(UploadPart::getChannel).toList();
    assertThat(channels).extracting(ChannelRecording::getFrom).containsExactly("a", "b");
    assertThat(channels.get(0).getFirstMarker()).isTrue();
    assertThat(channels.get(0).getMessagesCount()).isZero();
    assertThat(channels.get(1).getFirstMarker()).isFalse();
    assertThat(channels.get(1).getMessagesList())
        .extracting(RecordedMessage::getSeq)
        .containsExactly(11L, 12L, 13L);
    assertThat(parts).noneMatch(UploadPart::hasStateChunk);
  }

  /** The header's timeline counts back from when the header is built, in microseconds. */
  @Test
  void headerCarriesTheTimelineBeforeItWasSent() {
    LocalSnapshot cut =
        new LocalSnapshot(
            1, "w", new TreeMap<>(), new TreeMap<>(Map.of("b", 0L)), new TreeMap<>(), null);
    CompletedLocalSnapshot s =
        new CompletedLocalSnapshot(
            cut,
            CapturedState.of(new byte[1]),
            0,
            new io.cutpoint.client.engine.LocalTimeline(
                1_000_000, 1_200_000, Map.of("b", 3_000_000L), 3_000_000));
    UploadPart header = new UploadParts(s, 0, 1000, () -> 5_500_000L).next();
    io.cutpoint.api.v1.WorkerTimeline t = header.getHeader().getMeta().getTimeline();
    assertThat(t.getBeganMicros()).isEqualTo(4_500);
    assertThat(t.getCapturedMicros()).isEqualTo(4_300);
    assertThat(t.getCompletedMicros()).isEqualTo(2_500);
    assertThat(t.getClosedList())
        .containsExactly(
            io.cutpoint.api.v1.ChannelClosed.newBuilder().setFrom("b").setMicros(2_500).build());
    assertThat(t.hasChunkingBeganMicros()).as("not cut off the loop").isFalse();
    assertThat(t.hasChunksFoundMicros()).isFalse();
    // a piece without a timeline (built by hand) sends none
    CompletedLocalSnapshot bare = new CompletedLocalSnapshot(cut, CapturedState.of(new byte[1]), 0);
    assertThat(new UploadParts(bare, 0, 1000).next().getHeader().getMeta().hasTimeline()).isFalse();
  }

  /** A content-addressed state's timeline adds when it was cut and its missing chunks known. */
  @Test
  void aContentAddressedHeaderAddsWhenTheStateWasCutAndItsChunksFound() {
    LocalSnapshot cut =
        new LocalSnapshot(
            1, "w", new TreeMap<>(), new TreeMap<>(Map.of("b", 0L)), new TreeMap<>(), null);
    byte[] state = new byte[100_000];
    new java.util.Random(3).nextBytes(state);
    CompletedLocalSnapshot s =
        new CompletedLocalSnapshot(
            cut,
            CapturedState.of(state),
            0,
            new io.cutpoint.client.engine.LocalTimeline(
                1_000_000, 1_200_000, Map.of("b", 3_000_000L), 3_000_000));
    var content =
        new io.cutpoint.client.chunks.ArrayContent(
            state, io.cutpoint.client.chunks.ContentChunker.defaults());
    UploadPart header =
        new UploadParts(
                s,
                0,
                1000,
                () -> 9_000_000L,
                content,
                new int[] {0},
                new ChunkingTimes(3_500_000, 5_000_000, 8_000_000))
            .next();
    io.cutpoint.api.v1.WorkerTimeline t = header.getHeader().getMeta().getTimeline();
    assertThat(t.getCompletedMicros()).isEqualTo(6_000);
    assertThat(t.getChunkingBeganMicros()).isEqualTo(5_500);
    assertThat(t.getChunkedMicros()).isEqualTo(4_000);
    assertThat(t.getChunksFoundMicros()).isEqualTo(1_000);
  }

  @Test
  void largeRecordingsAreSplitIntoBoundedPartsInOrder() {
    LocalSnapshot cut =
        new LocalSnapshot(
            1,
            "w",
            new TreeMap<>(),
            new TreeMap<>(Map.of("b", 0L)),
            new TreeMap<>(Map.of("b", Pieces.messages(1, 10, 300))),
            null);
    CompletedLocalSnapshot s = new CompletedLocalSnapshot(cut, CapturedState.of(new byte[1]), 0);
    List<ChannelRecording> channels =
        Pieces.uploadParts(s, 0, 1000).stream()
            .filter(UploadPart::hasChannel)
            .map(UploadPart::getChannel)
            .toList();
    // 300-byte messages under a 1000-byte limit: 3 per part.
    assertThat(channels).extracting(ChannelRecording::getMessagesCount).containsExactly(3, 3, 3, 1);
    assertThat(channels).allMatch(c -> c.getFrom().equals("b") && !c.getFirstMarker());
    assertThat(
            channels.stream()
                .flatMap(c -> c.getMessagesList().stream())
                .map(RecordedMessage::getSeq)
                .toList())
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
  }

  @Test
  void aMessageLargerThanThePartLimitTravelsAlone() {
    LocalSnapshot cut =
        new LocalSnapshot(
            1,
            "w",
            new TreeMap<>(),
            new TreeMap<>(Map.of("b", 0L)),
            new TreeMap<>(
                Map.of(
                    "b",
                    List.of(
                        new io.cutpoint.cut.InTransitMessage(1, new byte[10]),
                        new io.cutpoint.cut.InTransitMessage(2, new byte[5000]),
                        new io.cutpoint.cut.InTransitMessage(3, new byte[10])))),
            null);
    CompletedLocalSnapshot s = new CompletedLocalSnapshot(cut, CapturedState.of(new byte[0]), 0);
    assertThat(
            Pieces.uploadParts(s, 0, 1000).stream()
                .filter(UploadPart::hasChannel)
                .map(p -> p.getChannel().getMessagesCount())
                .toList())
        .containsExactly(1, 1, 1);
  }

  private static ChannelCounter counter(String peer, long count) {
    return ChannelCounter.newBuilder().setPeer(peer).setCount(count).build();
  }
}
