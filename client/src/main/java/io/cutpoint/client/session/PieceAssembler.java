package io.cutpoint.client.session;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.Crc32cCombine;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.StateChunk;
import io.cutpoint.api.v1.UploadTrailer;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reassembles one worker's piece of a snapshot from its download parts, checking everything it can
 * before anything is restored: header first and for the expected snapshot and worker; chunk indexes
 * contiguous from 0; each chunk's CRC32C; the total size and whole-state CRC32C against the header;
 * recorded sequence numbers increasing per channel; the trailer's counts; nothing after the
 * trailer. Any failure is a {@link CorruptPieceException}. Pure logic.
 */
final class PieceAssembler {

  /** Largest array the JVM reliably allocates. */
  static final long MAX_STATE_BYTES = Integer.MAX_VALUE - 8;

  private final long snapshotId;
  private final String workerId;

  private LocalSnapshotMeta meta;
  private byte[] state;
  private int filled;
  private int chunks;
  private int wholeCrc; // of the state bytes so far, from each chunk's own
  private final SortedMap<String, List<InTransitMessage>> recordings = new TreeMap<>();
  private String firstMarkerFrom;
  private String lastChannel;
  private long messages;
  private boolean trailerSeen;

  // local recovery: the copy on disk, used when the header lists the same chunks
  private final List<ContentChunk> localContent;
  private final byte[] localState;
  private boolean fromLocal;
  private boolean localMismatch;

  PieceAssembler(long snapshotId, String workerId) {
    this(snapshotId, workerId, null, null);
  }

  /**
   * Assembles a piece whose state the worker holds on disk: {@code localState}, cut as {@code
   * localContent} lists. If the header lists exactly these chunks, the state is taken from the copy
   * (and a state chunk that arrives anyway replaces it); else the piece fails, and {@link
   * #localMismatch()} says why.
   */
  PieceAssembler(
      long snapshotId, String workerId, List<ContentChunk> localContent, byte[] localState) {
    this.snapshotId = snapshotId;
    this.workerId = workerId;
    this.localContent = localContent;
    this.localState = localState;
  }

  /** Whether the local copy did not match the header's chunk list (it should be discarded). */
  boolean localMismatch() {
    return localMismatch;
  }

  /** Takes the next part, in stream order. */
  void accept(DownloadPart part) throws CorruptPieceException {
    if (trailerSeen) {
      throw corrupt("a " + part.getPartCase() + " part came after the trailer");
    }
    if (meta == null && part.getPartCase() != DownloadPart.PartCase.HEADER) {
      throw corrupt("the first part is " + part.getPartCase() + ", expected HEADER");
    }
    switch (part.getPartCase()) {
      case HEADER -> header(part.getHeader().getMeta());
      case STATE_CHUNK -> chunk(part.getStateChunk());
      case CHANNEL -> channel(part.getChannel());
      case TRAILER -> trailer(part.getTrailer());
      default -> throw corrupt("a part with no content");
    }
  }

  /** The reassembled piece; only after the trailer. */
  Restorable finish() throws CorruptPieceException {
    if (!trailerSeen) {
      throw corrupt("the download ended without a trailer");
    }
    LocalSnapshot piece =
        new LocalSnapshot(
            snapshotId,
            workerId,
            counters(meta.getSentList(), "sent"),
            counters(meta.getReceivedList(), "received"),
            recordings,
            firstMarkerFrom);
    return new Restorable(meta, piece, state, fromLocal);
  }

  private void header(LocalSnapshotMeta m) throws CorruptPieceException {
    if (meta != null) {
      throw corrupt("a second header");
    }
    if (m.getSnapshotId() != snapshotId || !m.getWorkerId().equals(workerId)) {
      throw corrupt(
          "the header is for snapshot "
              + m.getSnapshotId()
              + " of worker '"
              + m.getWorkerId()
              + "'");
    }
    if (Long.compareUnsigned(m.getStateBytes(), MAX_STATE_BYTES) > 0) { // a uint64
      throw corrupt(
          "state of "
              + Long.toUnsignedString(m.getStateBytes())
              + " bytes is larger than one array");
    }
    meta = m;
    if (localState != null) {
      if (m.getContentCount() > 0
          && m.getContentList().equals(localContent)
          && localState.length == m.getStateBytes()
          && Crc32c.of(localState) == m.getStateCrc32C()) {
        fromLocal = true;
        state = localState;
        filled = state.length;
        return;
      }
      localMismatch = true;
      throw corrupt("the local copy of the state does not match the snapshot's chunk list");
    }
    state = new byte[(int) m.getStateBytes()];
  }

  private void chunk(StateChunk c) throws CorruptPieceException {
    if (fromLocal && chunks == 0 && filled == state.length) {
      // a coordinator that does not know local copies sends the state: take that one
      fromLocal = false;
      state = new byte[state.length];
      filled = 0;
    }
    if (lastChannel != null) {
      throw corrupt("state chunk " + c.getIndex() + " came after the channel recordings");
    }
    if (c.getIndex() != chunks) {
      throw corrupt(
          "state chunk "
              + Integer.toUnsignedString(c.getIndex())
              + " out of order, expected "
              + chunks);
    }
    int size = c.getData().size();
    if ((long) filled + size > state.length) {
      throw corrupt("state chunk " + chunks + " overruns the declared " + state.length + " bytes");
    }
    c.getData().copyTo(state, filled);
    int actual = Crc32c.of(state, filled, size);
    if (actual != c.getCrc32C()) {
      throw corrupt(
          "state chunk "
              + chunks
              + " has CRC32C "
              + Crc32c.hex(actual)
              + ", expected "
              + Crc32c.hex(c.getCrc32C()));
    }
    wholeCrc = Crc32cCombine.combine(wholeCrc, actual, size); // no second pass over the bytes
    filled += size;
    chunks++;
  }

  private void channel(ChannelRecording r) throws CorruptPieceException {
    String from = r.getFrom();
    if (from.isEmpty()) {
      throw corrupt("a channel recording without a sender");
    }
    if (!from.equals(lastChannel) && recordings.containsKey(from)) {
      throw corrupt("the recording of channel " + from + "->" + workerId + " is not contiguous");
    }
    lastChannel = from;
    List<InTransitMessage> list = recordings.computeIfAbsent(from, k -> new ArrayList<>());
    long last = list.isEmpty() ? 0 : list.get(list.size() - 1).seq();
    for (RecordedMessage m : r.getMessagesList()) {
      if (m.getSeq() <= last) {
        throw corrupt(
            "channel " + from + "->" + workerId + ": message #" + m.getSeq() + " after #" + last);
      }
      list.add(new InTransitMessage(m.getSeq(), m.getPayload().toByteArray()));
      last = m.getSeq();
    }
    messages += r.getMessagesCount();
    if (r.getFirstMarker()) {
      firstMarkerFrom = from;
    }
  }

  private void trailer(UploadTrailer t) throws CorruptPieceException {
    if (fromLocal) {
      if (t.getStateChunks() != 0 || t.getRecordedMessages() != messages) {
        throw corrupt(
            "the trailer counts "
                + t.getStateChunks()
                + " chunks and "
                + t.getRecordedMessages()
                + " messages, received 0 and "
                + messages);
      }
      trailerSeen = true;
      return;
    }
    if (filled != state.length) {
      throw corrupt("received " + filled + " state bytes, the header declares " + state.length);
    }
    if (wholeCrc != meta.getStateCrc32C()) {
      throw corrupt(
          "the state has CRC32C "
              + Crc32c.hex(wholeCrc)
              + ", the header declares "
              + Crc32c.hex(meta.getStateCrc32C()));
    }
    if (t.getStateChunks() != chunks || t.getRecordedMessages() != messages) {
      throw corrupt(
          "the trailer counts "
              + t.getStateChunks()
              + " chunks and "
              + t.getRecordedMessages()
              + " messages, received "
              + chunks
              + " and "
              + messages);
    }
    trailerSeen = true;
  }

  private SortedMap<String, Long> counters(List<ChannelCounter> list, String what)
      throws CorruptPieceException {
    SortedMap<String, Long> out = new TreeMap<>();
    for (ChannelCounter c : list) {
      if (out.put(c.getPeer(), c.getCount()) != null) {
        throw corrupt("the " + what + " counter of peer '" + c.getPeer() + "' appears twice");
      }
    }
    return out;
  }

  private CorruptPieceException corrupt(String what) {
    return new CorruptPieceException(
        "piece of snapshot " + snapshotId + " for worker " + workerId + ": " + what);
  }

  /**
   * A checked piece, ready for {@code WorkerControl.restore}; {@code fromLocalCopy}: its state came
   * from the worker's own disk.
   */
  record Restorable(
      LocalSnapshotMeta meta, LocalSnapshot piece, byte[] state, boolean fromLocalCopy) {}
}
