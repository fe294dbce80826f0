package io.cutpoint.server.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.Halted;
import io.cutpoint.api.v1.Heartbeat;
import io.cutpoint.api.v1.Join;
import io.cutpoint.api.v1.LocalSnapshotFailed;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.PieceUpload;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.Restored;
import io.cutpoint.api.v1.SnapshotRequest;
import io.cutpoint.api.v1.StateChunk;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.UploadHeader;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadTrailer;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Arbitrary worker input against a real coordinator (in-process transport): session messages in any
 * order (pieces of any parts among them), and uploads of any parts. Whatever arrives, the answer is
 * a status of its own (never INTERNAL or UNKNOWN, which an exception escaping a handler becomes),
 * and the coordinator keeps serving. Runs over the committed inputs in {@code mvn verify}; fuzzes
 * with {@code JAZZER_FUZZ=1}.
 */
class WorkerServiceFuzzTest {

  private static final Set<Status.Code> HANDLER_CRASH =
      Set.of(Status.Code.INTERNAL, Status.Code.UNKNOWN);
  private static final String[] IDS = {
    "a", "b", "c", "", "a-very-long-id-" + "x".repeat(130), "bad id!"
  };

  private static Path dir;
  private static InProcessCoordinator coordinator;
  private static RawWorker a;
  private static RawWorker b;
  private static long snapshot;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("cutpoint-fuzz");
    coordinator =
        new InProcessCoordinator(
            InProcessCoordinator.config(dir)
                .snapshotTimeout(Duration.ofMinutes(10))
                .heartbeatTimeout(Duration.ofMinutes(10))
                .build());
    a = new RawWorker(coordinator.async(), "a").join(List.of("b"), List.of("b"));
    b = new RawWorker(coordinator.async(), "b").join(List.of("a"), List.of("a"));
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
    snapshot =
        coordinator
            .admin()
            .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance())
            .getSnapshotId();
  }

  @AfterAll
  static void stop() throws Exception {
    a.close();
    b.close();
    coordinator.close();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private static String id(FuzzedDataProvider data) {
    return data.consumeBoolean() ? IDS[data.consumeInt(0, IDS.length - 1)] : data.consumeString(40);
  }

  /** A session message of any kind; a piece's header names {@code self} or anyone. */
  private static WorkerMessage message(FuzzedDataProvider data, String self) {
    WorkerMessage.Builder m = WorkerMessage.newBuilder();
    switch (data.consumeInt(0, 7)) {
      case 0 -> {
        Join.Builder j =
            Join.newBuilder()
                .setWorkerId(id(data))
                .setChannelAddress(data.consumeString(30))
                .setEpoch(data.consumeLong())
                .setFresh(data.consumeBoolean());
        for (int i = data.consumeInt(0, 4); i > 0; i--) {
          if (data.consumeBoolean()) {
            j.addOutgoing(id(data));
          } else {
            j.addIncoming(id(data));
          }
        }
        m.setJoin(j);
      }
      case 1 -> m.setHeartbeat(Heartbeat.newBuilder().setSentAtUnixMs(data.consumeLong()));
      case 2 -> m.setSnapshotRequest(SnapshotRequest.newBuilder().setRequestId(data.consumeLong()));
      case 3 ->
          m.setSnapshotFailed(
              LocalSnapshotFailed.newBuilder()
                  .setSnapshotId(data.consumeLong())
                  .setReason(data.consumeString(50)));
      case 4 -> m.setHalted(Halted.newBuilder().setEpoch(data.consumeLong()));
      case 5 ->
          m.setRestored(
              Restored.newBuilder().setEpoch(data.consumeLong()).setSnapshotId(data.consumeLong()));
      case 6 -> {
        PieceUpload.Builder piece = PieceUpload.newBuilder();
        for (int i = data.consumeInt(0, 6); i > 0; i--) {
          UploadPart p = part(data);
          if (p.hasHeader() && data.consumeBoolean()) {
            p =
                p.toBuilder()
                    .setHeader(
                        p.getHeader().toBuilder()
                            .setMeta(p.getHeader().getMeta().toBuilder().setWorkerId(self)))
                    .build();
          }
          piece.addParts(p);
        }
        m.setPiece(piece);
      }
      default -> {}
    }
    return m.build();
  }

  @FuzzTest(maxDuration = "5m")
  void sessionStream(FuzzedDataProvider data) throws Exception {
    String workerId = "fuzz-" + data.consumeInt(0, 3);
    RawWorker w = new RawWorker(coordinator.async(), workerId);
    try {
      w.join(Join.newBuilder().setWorkerId(workerId).setChannelAddress("localhost:7000").build());
      for (int i = data.consumeInt(0, 8); i > 0 && !w.ended.isDone(); i--) {
        try {
          w.send(message(data, workerId));
        } catch (RuntimeException closed) {
          break; // the coordinator ended the stream meanwhile
        }
      }
    } finally {
      w.close();
    }
    Status end = w.endStatus();
    assertThat(end.getCode()).as("%s", end).isNotIn(HANDLER_CRASH);
    for (CoordinatorMessage m : w.history()) {
      if (m.hasPieceAnswer()) {
        Status answer =
            Status.fromCodeValue(m.getPieceAnswer().getCode())
                .withDescription(m.getPieceAnswer().getDescription());
        assertThat(answer.getCode()).as("%s", answer).isNotIn(HANDLER_CRASH);
      }
    }
    assertThat(
            coordinator
                .admin()
                .getCluster(GetClusterRequest.getDefaultInstance())
                .getTotalWorkers())
        .isGreaterThanOrEqualTo(2);
  }

  private static UploadPart part(FuzzedDataProvider data) {
    UploadPart.Builder p = UploadPart.newBuilder();
    switch (data.consumeInt(0, 4)) {
      case 0 -> {
        LocalSnapshotMeta.Builder meta =
            LocalSnapshotMeta.newBuilder()
                .setSnapshotId(data.consumeBoolean() ? snapshot : data.consumeLong())
                .setWorkerId(data.consumeBoolean() ? "a" : id(data))
                .setEpoch(data.consumeBoolean() ? 0 : data.consumeLong())
                .setStateBytes(data.consumeInt(0, 64))
                .setStateCrc32C(data.consumeInt());
        for (int i = data.consumeInt(0, 3); i > 0; i--) {
          ChannelCounter c =
              ChannelCounter.newBuilder().setPeer(id(data)).setCount(data.consumeLong()).build();
          if (data.consumeBoolean()) {
            meta.addSent(c);
          } else {
            meta.addReceived(c);
          }
        }
        p.setHeader(UploadHeader.newBuilder().setMeta(meta));
      }
      case 1 -> {
        byte[] bytes = data.consumeBytes(data.consumeInt(0, 64));
        p.setStateChunk(
            data.consumeBoolean()
                ? RawWorker.chunk(data.consumeInt(0, 3), bytes).getStateChunk()
                : StateChunk.newBuilder()
                    .setIndex(data.consumeInt())
                    .setData(ByteString.copyFrom(bytes))
                    .setCrc32C(data.consumeInt())
                    .build());
      }
      case 2 -> {
        ChannelRecording.Builder r =
            ChannelRecording.newBuilder().setFrom(id(data)).setFirstMarker(data.consumeBoolean());
        for (int i = data.consumeInt(0, 3); i > 0; i--) {
          r.addMessages(
              RecordedMessage.newBuilder()
                  .setSeq(data.consumeLong())
                  .setPayload(ByteString.copyFrom(data.consumeBytes(16))));
        }
        p.setChannel(r);
      }
      case 3 ->
          p.setTrailer(
              UploadTrailer.newBuilder()
                  .setStateChunks(data.consumeInt(0, 4))
                  .setRecordedMessages(data.consumeLong()));
      default -> {}
    }
    return p.build();
  }

  @FuzzTest(maxDuration = "5m")
  void uploadSnapshot(FuzzedDataProvider data) throws Exception {
    List<UploadPart> parts = new ArrayList<>();
    for (int i = data.consumeInt(0, 10); i > 0; i--) {
      parts.add(part(data));
    }
    var stub = data.consumeBoolean() ? a.transfers() : coordinator.async();
    try {
      RawWorker.sendRaw(stub, parts).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Status s = Status.fromThrowable(e.getCause());
      assertThat(s.getCode()).as("%s", s).isNotIn(HANDLER_CRASH);
    } catch (TimeoutException e) {
      throw new AssertionError("an upload got no answer within 30 s", e);
    }
  }
}
