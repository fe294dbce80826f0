package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.PieceAnswer;
import io.cutpoint.api.v1.PieceUpload;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker that sends piece after failing piece on its session stream, each giving up its claim at
 * once, while the store is slow: the parts queued on the store without limit. The session's pieces
 * that wait for the store are now bounded, and pieces are taken again once the store caught up.
 */
class SessionPieceFloodTest {

  @TempDir Path dir;

  private static List<PieceAnswer> answers(RawWorker w) {
    return w.history().stream()
        .filter(m -> m.getBodyCase() == CoordinatorMessage.BodyCase.PIECE_ANSWER)
        .map(CoordinatorMessage::getPieceAnswer)
        .toList();
  }

  /**
   * a's piece of {@code state} in one chunk, its trailer left out: it fails, and frees its claim.
   */
  private static WorkerMessage failingPiece(long id, byte[] state) {
    List<UploadPart> parts =
        RawWorker.upload(
            RawWorker.meta(id, "a")
                .addSent(RawWorker.counter("b", 3))
                .addReceived(RawWorker.counter("b", 0)),
            state,
            state.length,
            List.of());
    return WorkerMessage.newBuilder()
        .setPiece(PieceUpload.newBuilder().addAllParts(parts.subList(0, parts.size() - 1)))
        .build();
  }

  @Test
  void piecesWaitingForTheStoreAreBoundedPerSession() throws Exception {
    CountDownLatch storeGoesOn = new CountDownLatch(1);
    InProcessCoordinator coordinator =
        new InProcessCoordinator(
            InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build(),
            real ->
                InterceptedStore.around(
                    real,
                    (method, args) -> {
                      if (method.contains("StateChunk")) {
                        storeGoesOn.await(30, TimeUnit.SECONDS); // a slow disk
                      }
                    }));
    try (RawPair pair = new RawPair(coordinator)) {
      byte[] state = new byte[200 << 10];
      new Random(1).nextBytes(state);
      WorkerMessage piece = failingPiece(pair.snapshotId, state);
      int sent = 0;
      while (answers(pair.a).stream()
          .noneMatch(a -> a.getCode() == Status.Code.RESOURCE_EXHAUSTED.value())) {
        assertThat(sent).as("pieces sent before one was refused").isLessThan(20);
        pair.a.send(piece);
        sent++;
        int expected = sent;
        await().atMost(Duration.ofSeconds(10)).until(() -> answers(pair.a).size() == expected);
      }
      assertThat(answers(pair.a).get(sent - 1).getDescription())
          .contains("still storing")
          .contains("earlier pieces");
      assertThat(sent)
          .as("about %d bytes wait for the store at most", SessionPieces.MAX_STORING_BYTES)
          .isLessThanOrEqualTo((int) (SessionPieces.MAX_STORING_BYTES / state.length) + 1);

      storeGoesOn.countDown();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                int before = answers(pair.a).size();
                pair.a.send(piece);
                await().atMost(Duration.ofSeconds(10)).until(() -> answers(pair.a).size() > before);
                return answers(pair.a).get(before).getCode()
                    == Status.Code.INVALID_ARGUMENT.value(); // taken, and failed without a trailer
              });
    }
  }
}
