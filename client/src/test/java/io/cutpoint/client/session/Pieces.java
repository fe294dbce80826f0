package io.cutpoint.client.session;

import com.google.protobuf.InvalidProtocolBufferException;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/** Test pieces: a worker "w" with peers a (in/out), b (in), c (out). */
final class Pieces {

  private Pieces() {}

  static byte[] state(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  static List<InTransitMessage> messages(long fromSeq, int count, int payloadBytes) {
    List<InTransitMessage> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(new InTransitMessage(fromSeq + i, state(payloadBytes, fromSeq + i)));
    }
    return out;
  }

  static LocalSnapshot cut(long snapshotId, String firstMarkerFrom) {
    return new LocalSnapshot(
        snapshotId,
        "w",
        new TreeMap<>(Map.of("a", 7L, "c", 3L)),
        new TreeMap<>(Map.of("a", 4L, "b", 10L)),
        new TreeMap<>(Map.of("a", List.of(), "b", messages(11, 3, 100))),
        firstMarkerFrom);
  }

  static CompletedLocalSnapshot completed(long snapshotId, byte[] state) {
    return new CompletedLocalSnapshot(
        cut(snapshotId, "a"),
        new CapturedState(
            state,
            CapturedState.Activity.PASSIVE,
            List.of(new CapturedState.WaitFor("b", "lock-1"))),
        5_000_000L);
  }

  static List<UploadPart> uploadParts(CompletedLocalSnapshot s, long epoch, int chunkBytes) {
    List<UploadPart> out = new ArrayList<>();
    new UploadParts(s, epoch, chunkBytes).forEachRemaining(out::add);
    return out;
  }

  /** The same parts as a download (the two messages share their field numbers). */
  static List<DownloadPart> asDownload(List<UploadPart> parts) {
    List<DownloadPart> out = new ArrayList<>();
    for (UploadPart p : parts) {
      try {
        out.add(DownloadPart.parseFrom(p.toByteString()));
      } catch (InvalidProtocolBufferException e) {
        throw new AssertionError(e);
      }
    }
    return out;
  }
}
