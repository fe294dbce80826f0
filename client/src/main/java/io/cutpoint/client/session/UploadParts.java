package io.cutpoint.client.session;

import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.Activity;
import io.cutpoint.api.v1.ChannelClosed;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.StateChunk;
import io.cutpoint.api.v1.UploadHeader;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadTrailer;
import io.cutpoint.api.v1.WaitFor;
import io.cutpoint.api.v1.WorkerTimeline;
import io.cutpoint.client.chunks.ChunkRef;
import io.cutpoint.client.chunks.StateContent;
import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.engine.LocalTimeline;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The parts of one snapshot upload, produced lazily in wire order: header, state chunks, channel
 * recordings (every incoming channel, split by payload size), trailer. Only the part being produced
 * is materialised. Parts wrap the captured bytes without copying them: the state handler and the
 * message handler promise not to change the arrays they hand over ({@code StateHandler#capture},
 * {@code MessageHandler#onMessage}), so the one copy of a part is gRPC's, into the transport's
 * buffers. Pure logic.
 */
final class UploadParts implements Iterator<UploadPart> {

  private final CompletedLocalSnapshot snapshot;
  private final byte[] state;
  private final int chunkBytes;
  private final List<String> channels;
  private final int stateChunks;
  private final StateContent content; // the state's content chunks, or null
  private final int[] send; // of a content-addressed state: the positions of the chunks to send
  private final long epoch;
  private final LongSupplier nanoClock;
  private final ChunkingTimes times;

  private Stage stage = Stage.HEADER;
  private int nextChunk;
  private int channelIndex;
  private int messageIndex;
  private long recordedMessages;

  private enum Stage {
    HEADER,
    CHUNKS,
    CHANNELS,
    TRAILER,
    DONE
  }

  UploadParts(CompletedLocalSnapshot snapshot, long epoch, int chunkBytes) {
    this(snapshot, epoch, chunkBytes, System::nanoTime);
  }

  /**
   * @param nanoClock the worker engine's clock ({@link System#nanoTime()} in a {@code Worker}): the
   *     header's timeline counts back from when it is built
   */
  UploadParts(CompletedLocalSnapshot snapshot, long epoch, int chunkBytes, LongSupplier nanoClock) {
    this(snapshot, epoch, chunkBytes, nanoClock, null, null, ChunkingTimes.NONE);
  }

  /**
   * The upload of a content-addressed state: the header lists every chunk of {@code content}, and
   * only the chunks at the positions {@code send} (ascending) go up, the ones the coordinator
   * lacks. {@code times}: when it was cut and its missing chunks known, for the timeline.
   */
  UploadParts(
      CompletedLocalSnapshot snapshot,
      long epoch,
      int chunkBytes,
      LongSupplier nanoClock,
      StateContent content,
      int[] send,
      ChunkingTimes times) {
    this.nanoClock = nanoClock;
    this.times = times;
    this.snapshot = snapshot;
    this.state = content != null ? null : snapshot.state().bytes();
    this.chunkBytes = chunkBytes;
    this.epoch = epoch;
    this.content = content;
    this.send = send;
    this.stateChunks =
        send != null ? send.length : (int) ((state.length + (long) chunkBytes - 1) / chunkBytes);
    TreeSet<String> incoming = new TreeSet<>(snapshot.cut().received().keySet());
    incoming.addAll(snapshot.cut().recordings().keySet());
    this.channels = List.copyOf(incoming);
  }

  /** Number of state chunks this upload sends. */
  int stateChunks() {
    return stateChunks;
  }

  @Override
  public boolean hasNext() {
    return stage != Stage.DONE;
  }

  @Override
  public UploadPart next() {
    switch (stage) {
      case HEADER -> {
        stage = stateChunks > 0 ? Stage.CHUNKS : afterChunks();
        long now = nanoClock.getAsLong();
        LocalSnapshotMeta.Builder meta =
            content == null
                ? meta(snapshot, epoch, now, state.length, Crc32c.of(state)).toBuilder()
                : meta(snapshot, epoch, now, content.size(), content.crc32c()).toBuilder();
        if (meta.hasTimeline() && times.known()) {
          meta.getTimelineBuilder()
              .setChunkingBeganMicros(before(now, times.beganNanos()))
              .setChunkedMicros(before(now, times.chunkedNanos()))
              .setChunksFoundMicros(before(now, times.foundNanos()));
        }
        for (ChunkRef c : content == null ? List.<ChunkRef>of() : content.recipe()) {
          meta.addContent(
              ContentChunk.newBuilder()
                  .setSha256(UnsafeByteOperations.unsafeWrap(c.sha256()))
                  .setLength(c.length())
                  .setCrc32C(c.crc32c()));
        }
        return UploadPart.newBuilder().setHeader(UploadHeader.newBuilder().setMeta(meta)).build();
      }
      case CHUNKS -> {
        UploadPart part = chunk(nextChunk++);
        if (nextChunk == stateChunks) {
          stage = afterChunks();
        }
        return part;
      }
      case CHANNELS -> {
        UploadPart part = channelPart();
        if (channelIndex == channels.size()) {
          stage = Stage.TRAILER;
        }
        return part;
      }
      case TRAILER -> {
        stage = Stage.DONE;
        return UploadPart.newBuilder()
            .setTrailer(
                UploadTrailer.newBuilder()
                    .setStateChunks(stateChunks)
                    .setRecordedMessages(recordedMessages))
            .build();
      }
      default ->
          throw new NoSuchElementException(
              "upload of snapshot " + snapshot.cut().snapshotId() + " has no more parts");
    }
  }

  private Stage afterChunks() {
    return channels.isEmpty() ? Stage.TRAILER : Stage.CHANNELS;
  }

  private UploadPart chunk(int ordinal) {
    if (content != null) {
      int index = send[ordinal];
      return UploadPart.newBuilder()
          .setStateChunk(
              StateChunk.newBuilder()
                  .setIndex(index)
                  .setData(content.chunk(index))
                  .setCrc32C(content.recipe().get(index).crc32c()))
          .build();
    }
    int offset = ordinal * chunkBytes;
    int length = Math.min(chunkBytes, state.length - offset);
    return UploadPart.newBuilder()
        .setStateChunk(
            StateChunk.newBuilder()
                .setIndex(ordinal)
                .setData(UnsafeByteOperations.unsafeWrap(state, offset, length))
                .setCrc32C(Crc32c.of(state, offset, length)))
        .build();
  }

  /** The next part of the current channel; moves to the next channel when this one is done. */
  private UploadPart channelPart() {
    LocalSnapshot cut = snapshot.cut();
    String peer = channels.get(channelIndex);
    List<InTransitMessage> messages = cut.recorded(peer);
    ChannelRecording.Builder part =
        ChannelRecording.newBuilder()
            .setFrom(peer)
            .setFirstMarker(peer.equals(cut.firstMarkerFrom()));
    long payload = 0;
    while (messageIndex < messages.size()) {
      InTransitMessage m = messages.get(messageIndex);
      if (part.getMessagesCount() > 0 && payload + m.payload().length > chunkBytes) {
        break;
      }
      part.addMessages(
          RecordedMessage.newBuilder()
              .setSeq(m.seq())
              .setPayload(UnsafeByteOperations.unsafeWrap(m.payload())));
      payload += m.payload().length;
      messageIndex++;
    }
    recordedMessages += part.getMessagesCount();
    if (messageIndex == messages.size()) {
      channelIndex++;
      messageIndex = 0;
    }
    return UploadPart.newBuilder().setChannel(part).build();
  }

  /**
   * The header's meta: counters, state size and CRC32C, the application's declarations, and the
   * timeline, in microseconds before {@code sentNanos} (the engine's clock).
   */
  static LocalSnapshotMeta meta(CompletedLocalSnapshot snapshot, long epoch, long sentNanos) {
    byte[] state = snapshot.state().bytes();
    return meta(snapshot, epoch, sentNanos, state.length, Crc32c.of(state));
  }

  private static LocalSnapshotMeta meta(
      CompletedLocalSnapshot snapshot, long epoch, long sentNanos, long stateBytes, int stateCrc) {
    LocalSnapshot cut = snapshot.cut();
    CapturedState captured = snapshot.state();
    LocalSnapshotMeta.Builder meta =
        LocalSnapshotMeta.newBuilder()
            .setSnapshotId(cut.snapshotId())
            .setWorkerId(cut.workerId())
            .setEpoch(epoch)
            .addAllSent(counters(cut.sent()))
            .addAllReceived(counters(cut.received()))
            .setStateBytes(stateBytes)
            .setStateCrc32C(stateCrc)
            .setActivity(activity(captured.activity()))
            .setRecordingMillis(
                TimeUnit.NANOSECONDS.toMillis(Math.max(0, snapshot.recordingNanos())));
    for (CapturedState.WaitFor w : captured.waitingFor()) {
      meta.addWaitingFor(WaitFor.newBuilder().setPeer(w.peer()).setResource(w.resource()));
    }
    LocalTimeline t = snapshot.timeline();
    if (t.known()) {
      WorkerTimeline.Builder timeline =
          WorkerTimeline.newBuilder()
              .setBeganMicros(before(sentNanos, t.beganNanos()))
              .setCapturedMicros(before(sentNanos, t.capturedNanos()))
              .setCompletedMicros(before(sentNanos, t.completedNanos()));
      t.closedNanos()
          .forEach(
              (from, at) ->
                  timeline.addClosed(
                      ChannelClosed.newBuilder().setFrom(from).setMicros(before(sentNanos, at))));
      meta.setTimeline(timeline);
    }
    return meta.build();
  }

  private static long before(long sentNanos, long atNanos) {
    return Math.max(0, sentNanos - atNanos) / 1_000;
  }

  private static List<ChannelCounter> counters(Map<String, Long> byPeer) {
    List<ChannelCounter> out = new ArrayList<>(byPeer.size());
    byPeer.forEach(
        (peer, count) ->
            out.add(ChannelCounter.newBuilder().setPeer(peer).setCount(count).build()));
    return out;
  }

  static Activity activity(CapturedState.Activity a) {
    return switch (a) {
      case UNSPECIFIED -> Activity.ACTIVITY_UNSPECIFIED;
      case ACTIVE -> Activity.ACTIVITY_ACTIVE;
      case PASSIVE -> Activity.ACTIVITY_PASSIVE;
    };
  }
}
