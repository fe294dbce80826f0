package io.cutpoint.server.grpc;

import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.PieceAnswer;
import io.cutpoint.api.v1.PieceUpload;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two raw workers a <-> b send their pieces whole on their session streams: the same checks as an
 * upload call, the answer on the stream.
 */
class SessionPieceTest {

  @TempDir Path dir;
  private RawPair pair;
  private long id;

  @BeforeEach
  void setUp() throws Exception {
    pair =
        new RawPair(
            InProcessCoordinator.config(dir)
                .heartbeatTimeout(java.time.Duration.ofMinutes(10))
                .build());
    id = pair.snapshotId;
  }

  @AfterEach
  void tearDown() throws Exception {
    pair.close();
  }

  private List<UploadPart> pieceOfA(byte[] state) {
    return pair.pieceOfA(state);
  }

  private List<UploadPart> pieceOfB(long... recordedSeqs) {
    return pair.pieceOfB("b".getBytes(), recordedSeqs);
  }

  /** Sends {@code parts} as one piece on {@code w}'s session and waits for its answer. */
  private static PieceAnswer sendPiece(RawWorker w, List<UploadPart> parts) throws Exception {
    long before = answers(w);
    w.send(
        WorkerMessage.newBuilder().setPiece(PieceUpload.newBuilder().addAllParts(parts)).build());
    return w.await(
            m -> m.getBodyCase() == CoordinatorMessage.BodyCase.PIECE_ANSWER && answers(w) > before)
        .getPieceAnswer();
  }

  private static long answers(RawWorker w) {
    return w.history().stream()
        .filter(m -> m.getBodyCase() == CoordinatorMessage.BodyCase.PIECE_ANSWER)
        .count();
  }

  private SnapshotManifest manifest() {
    return pair.coordinator
        .admin()
        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
        .getManifest();
  }

  @Test
  void theWelcomeSaysHowLargeAPieceTheSessionTakes() {
    CoordinatorMessage welcome =
        pair.a.history().stream()
            .filter(m -> m.getBodyCase() == CoordinatorMessage.BodyCase.WELCOME)
            .findFirst()
            .orElseThrow();
    assertThat(welcome.getWelcome().getMaxPieceBytes()).isEqualTo(SessionPieces.MAX_PIECE_BYTES);
  }

  @Test
  void piecesOnTheSessionAreStoredVerifiedAndCommitted() throws Exception {
    byte[] stateA = "state of worker a, longer than a chunk".getBytes();
    PieceAnswer first = sendPiece(pair.a, pieceOfA(stateA));
    assertThat(first.getCode()).isZero();
    assertThat(first.getSnapshotId()).isEqualTo(id);
    assertThat(first.getStoredStateBytes()).isEqualTo(stateA.length);
    assertThat(manifest().getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_PENDING);

    assertThat(sendPiece(pair.b, pieceOfB(2, 3)).getCode()).isZero();
    SnapshotManifest m = manifest();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(m.getInFlightMessages()).isEqualTo(2);
    assertThat(m.getTotalStateBytes()).isEqualTo(stateA.length + 1);
  }

  @Test
  void aCutBrokenByAPieceOnTheSessionIsNotCommitted() throws Exception {
    assertThat(sendPiece(pair.a, pieceOfA("a".getBytes())).getCode()).isZero();
    // b recorded only message 3: message 2 is missing from the cut
    assertThat(sendPiece(pair.b, pieceOfB(3)).getCode()).isZero();
    SnapshotManifest m = manifest();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_FAILED);
    assertThat(m.getReason()).contains("recorded 1 messages in transit, expected 2");
  }

  @Test
  void aSessionCarriesOnlyItsOwnWorkersPiece() throws Exception {
    PieceAnswer answer = sendPiece(pair.a, pieceOfB(2, 3));
    assertThat(answer.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED.value());
    assertThat(answer.getDescription()).contains("carries only its own piece, not worker b's");
    // nothing of b's was taken: b delivers its own
    assertThat(sendPiece(pair.b, pieceOfB(2, 3)).getCode()).isZero();
    assertThat(manifest().getPiecesList()).extracting(p -> p.getWorkerId()).containsExactly("b");
  }

  @Test
  void aPieceThatFailsTheUploadsChecksIsRefusedAndTheWorkerMayTryAgain() throws Exception {
    List<UploadPart> parts = RawWorker.withFlippedBit(pieceOfA("0123456789".getBytes()), 1, 2);
    PieceAnswer corrupt = sendPiece(pair.a, parts);
    assertThat(corrupt.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT.value());
    assertThat(corrupt.getDescription()).contains("chunk 0 fails its CRC32C");

    PieceAnswer cut = sendPiece(pair.a, pieceOfA("0123".getBytes()).subList(0, 2));
    assertThat(cut.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT.value());
    assertThat(cut.getDescription()).contains("without a trailer");

    assertThat(sendPiece(pair.a, pieceOfA("0123".getBytes())).getCode()).isZero();
    assertThat(sendPiece(pair.a, pieceOfA("0123".getBytes())).getCode())
        .isEqualTo(Status.Code.ALREADY_EXISTS.value());
  }

  @Test
  void aPieceLargerThanTheWelcomeSaysIsRefused() throws Exception {
    byte[] big = new byte[SessionPieces.MAX_PIECE_BYTES + 1];
    List<UploadPart> parts =
        RawWorker.upload(
            meta(id, "a").addSent(counter("b", 3)).addReceived(counter("b", 0)),
            big,
            64 << 10,
            List.of(ChannelRecording.newBuilder().setFrom("b").build()));
    PieceAnswer answer = sendPiece(pair.a, parts);
    assertThat(answer.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED.value());
    assertThat(answer.getDescription()).contains("upload it with UploadSnapshot");
    assertThat(manifest().getPiecesList()).isEmpty();
  }
}
