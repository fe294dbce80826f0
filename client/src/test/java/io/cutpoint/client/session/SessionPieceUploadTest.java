package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.PieceAnswer;
import io.cutpoint.api.v1.PieceUpload;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.api.v1.WorkerMessage.BodyCase;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Small pieces go whole on the session stream when the coordinator's welcome says it takes them;
 * larger ones, and every piece for a coordinator that does not say so, go with an upload call.
 */
class SessionPieceUploadTest {

  private static final int LIMIT = 64 << 10;

  private final InProcessCoordinator coordinator = new InProcessCoordinator();
  private final FakeCoordinator fake = coordinator.fake;
  private final FakeWorker worker = new FakeWorker("w", List.of("a"), List.of("a"));
  private final List<String> outcomes = new CopyOnWriteArrayList<>();
  private CoordinatorSession session;

  @AfterEach
  void tearDown() {
    if (session != null) {
      session.close();
    }
    coordinator.close();
  }

  private void joined(int maxPieceBytes) throws Exception {
    joined(maxPieceBytes, SessionOptions.defaults().transferTimeout());
  }

  private void joined(int maxPieceBytes, Duration transferTimeout) throws Exception {
    fake.welcome = fake.welcome.toBuilder().setMaxPieceBytes(maxPieceBytes).build();
    SessionOptions d =
        SessionOptions.defaults().withReconnect(Duration.ofMillis(10), Duration.ofMillis(50));
    session =
        new CoordinatorSession(
            coordinator.channel,
            worker,
            new SessionOptions(
                d.heartbeatInterval(),
                d.reconnectInitial(),
                d.reconnectMax(),
                d.joinTimeout(),
                d.uploadChunkBytes(),
                d.uploadQueue(),
                transferTimeout,
                d.closeTimeout(),
                d.clock(),
                d.contentChunks()));
    session.addListener(
        new SessionListener() {
          @Override
          public void uploaded(long snapshotId, long stateBytes) {
            outcomes.add("uploaded " + snapshotId + " " + stateBytes);
          }

          @Override
          public void uploadFailed(long snapshotId, String reason) {
            outcomes.add("failed " + snapshotId + " " + reason);
          }
        });
    session.start().joined().get(5, TimeUnit.SECONDS);
  }

  /** The pieces the coordinator got on the session, once there are {@code n}. */
  private List<PieceUpload> pieces(int n) {
    return await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> fake.received(BodyCase.PIECE).stream().map(WorkerMessage::getPiece).toList(),
            l -> l.size() == n);
  }

  private void answer(long snapshotId, Status.Code code, String description, long stored) {
    fake.send(
        CoordinatorMessage.newBuilder()
            .setPieceAnswer(
                PieceAnswer.newBuilder()
                    .setSnapshotId(snapshotId)
                    .setCode(code.value())
                    .setDescription(description)
                    .setStoredStateBytes(stored))
            .build());
  }

  @Test
  void aSmallPieceGoesWholeOnTheSessionAndItsAnswerEndsTheUpload() throws Exception {
    joined(LIMIT);
    worker.listener().completed(Pieces.completed(7, Pieces.state(1000, 1)));

    List<UploadPart> parts = pieces(1).get(0).getPartsList();
    assertThat(parts.get(0).getHeader().getMeta().getSnapshotId()).isEqualTo(7);
    assertThat(parts.get(parts.size() - 1).hasTrailer()).isTrue();
    assertThat(fake.uploads).isEmpty();
    assertThat(outcomes).isEmpty(); // not before the coordinator answers

    answer(7, Status.Code.OK, "", 1000);
    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 1);
    assertThat(outcomes).containsExactly("uploaded 7 1000");
  }

  /**
   * A piece the coordinator never answers, while the session stays up, fails at the transfer
   * timeout as an upload call would: it held the upload queue, so no later snapshot went up.
   */
  @Test
  void aPieceWithoutAnAnswerFailsAtTheTransferTimeoutAndTheNextOneGoesUp() throws Exception {
    joined(LIMIT, Duration.ofMillis(300));
    worker.listener().completed(Pieces.completed(7, Pieces.state(1000, 1)));
    pieces(1);

    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 1);
    assertThat(outcomes.get(0))
        .startsWith("failed 7 ")
        .contains("DEADLINE_EXCEEDED")
        .contains("did not answer the piece");
    worker.listener().completed(Pieces.completed(8, Pieces.state(1000, 2)));
    assertThat(pieces(2).get(1).getParts(0).getHeader().getMeta().getSnapshotId()).isEqualTo(8);
  }

  @Test
  void aPieceLargerThanTheSessionTakesGoesWithAnUploadCall() throws Exception {
    joined(LIMIT);
    worker.listener().completed(Pieces.completed(8, Pieces.state(LIMIT + 1, 2)));

    await().atMost(Duration.ofSeconds(5)).until(() -> fake.uploadedOk(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 1);
    assertThat(outcomes).containsExactly("uploaded 8 " + (LIMIT + 1));
    assertThat(fake.received(BodyCase.PIECE)).isEmpty();
  }

  @Test
  void withoutTheWelcomesSayEveryPieceGoesWithAnUploadCall() throws Exception {
    joined(0);
    worker.listener().completed(Pieces.completed(9, Pieces.state(10, 3)));

    await().atMost(Duration.ofSeconds(5)).until(() -> fake.uploadedOk(1));
    assertThat(fake.received(BodyCase.PIECE)).isEmpty();
  }

  @Test
  void aRefusedPieceIsReportedAsAFailedUploadWouldBe() throws Exception {
    joined(LIMIT);
    worker.listener().completed(Pieces.completed(10, Pieces.state(100, 4)));
    pieces(1);
    answer(10, Status.Code.INVALID_ARGUMENT, "state chunk 0 fails its CRC32C", 0);

    WorkerMessage failed =
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> fake.received(BodyCase.SNAPSHOT_FAILED), l -> !l.isEmpty())
            .get(0);
    assertThat(failed.getSnapshotFailed().getSnapshotId()).isEqualTo(10);
    assertThat(failed.getSnapshotFailed().getReason())
        .contains("INVALID_ARGUMENT", "fails its CRC32C");
    assertThat(outcomes).singleElement().asString().startsWith("failed 10");
  }

  @Test
  void anAnswerToAnotherPieceIsIgnored() throws Exception {
    joined(LIMIT);
    worker.listener().completed(Pieces.completed(11, Pieces.state(100, 5)));
    pieces(1);
    answer(99, Status.Code.OK, "", 100);
    answer(11, Status.Code.OK, "", 100);
    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 1);
    assertThat(outcomes).containsExactly("uploaded 11 100");
  }

  @Test
  void aSessionThatEndsBeforeTheAnswerFailsThePieceAndTheNextGoesOnTheNewSession()
      throws Exception {
    joined(LIMIT);
    worker.listener().completed(Pieces.completed(12, Pieces.state(100, 6)));
    pieces(1);
    coordinator.stop(); // no answer came
    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 1);
    assertThat(outcomes.get(0)).startsWith("failed 12").contains("UNAVAILABLE");

    coordinator.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> session.state() == SessionState.JOINED);
    worker.listener().completed(Pieces.completed(13, Pieces.state(100, 7)));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                fake.received(BodyCase.PIECE).stream()
                    .anyMatch(
                        m -> m.getPiece().getParts(0).getHeader().getMeta().getSnapshotId() == 13));
    answer(13, Status.Code.OK, "", 100);
    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 2);
    assertThat(outcomes.get(1)).isEqualTo("uploaded 13 100");
  }

  /**
   * A piece whose session can no longer send (the stream broke before the worker heard of it) fails
   * at once; the queue must not stay stuck on it, and the next snapshot's piece goes up.
   */
  @Test
  void aPieceThatCouldNotBeSentDoesNotHoldUpTheNextOne() throws Exception {
    List<Long> sent = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicBoolean streamBroken =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    SnapshotUploader.Pieces pieces =
        new SnapshotUploader.Pieces() {
          @Override
          public int maxPieceBytes() {
            return LIMIT;
          }

          @Override
          public boolean send(PieceUpload piece) {
            if (streamBroken.getAndSet(false)) {
              return false;
            }
            sent.add(piece.getParts(0).getHeader().getMeta().getSnapshotId());
            return true;
          }

          @Override
          public java.util.concurrent.Future<?> deadline(Duration timeout, Runnable expired) {
            return new java.util.concurrent.CompletableFuture<Void>(); // never expires here
          }
        };
    SessionThreads.OwnLoop loop = SessionThreads.ownLoop("piece-test-loop");
    try {
      UploadQueue queue =
          new UploadQueue(
              "w",
              new SnapshotUploader(
                  coordinator.channel,
                  loop,
                  1 << 20,
                  true,
                  Duration.ofMinutes(1),
                  null,
                  Runnable::run,
                  pieces),
              () -> 0,
              new UploadQueue.Reports() {
                @Override
                public boolean snapshotFailed(long snapshotId, String reason) {
                  return true;
                }

                @Override
                public void uploaded(long snapshotId, long storedBytes) {
                  outcomes.add("uploaded " + snapshotId);
                }

                @Override
                public void uploadFailed(long snapshotId, String reason) {
                  outcomes.add("failed " + snapshotId + " " + reason);
                }
              },
              loop,
              4);
      loop.execute(queue::joined);
      queue.completed(Pieces.completed(20, Pieces.state(100, 8)));
      await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 1);
      assertThat(outcomes.get(0)).startsWith("failed 20").contains("UNAVAILABLE");

      queue.completed(Pieces.completed(21, Pieces.state(100, 9)));
      await().atMost(Duration.ofSeconds(5)).until(() -> sent.contains(21L));
    } finally {
      SessionThreads.executor(loop.executor(), Duration.ofSeconds(5), "test loop");
    }
  }
}
