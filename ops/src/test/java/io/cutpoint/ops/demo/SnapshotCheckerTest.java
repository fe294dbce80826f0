package io.cutpoint.ops.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.GetChannelStateRequest;
import io.cutpoint.api.v1.GetChannelStateResponse;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.GetSnapshotResponse;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The checker finds a cut that loses money, a stored state that differs, and a partial cut. */
class SnapshotCheckerTest {

  private final Map<Long, SnapshotManifest> manifests = new ConcurrentHashMap<>();
  private final Map<String, List<Long>> channels = new ConcurrentHashMap<>();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server =
        InProcessServerBuilder.forName(name)
            .directExecutor()
            .addService(
                new AdminGrpc.AdminImplBase() {
                  @Override
                  public void getSnapshot(
                      GetSnapshotRequest r, StreamObserver<GetSnapshotResponse> o) {
                    SnapshotManifest m = manifests.get(r.getSnapshotId());
                    if (m == null) {
                      o.onError(Status.NOT_FOUND.asRuntimeException());
                      return;
                    }
                    o.onNext(GetSnapshotResponse.newBuilder().setManifest(m).build());
                    o.onCompleted();
                  }

                  @Override
                  public void getChannelState(
                      GetChannelStateRequest r, StreamObserver<GetChannelStateResponse> o) {
                    GetChannelStateResponse.Builder b = GetChannelStateResponse.newBuilder();
                    long seq = 1;
                    for (long amount :
                        channels.getOrDefault(
                            r.getChannel().getFrom() + "->" + r.getChannel().getTo(), List.of())) {
                      b.addMessages(
                          RecordedMessage.newBuilder()
                              .setSeq(seq++)
                              .setPayload(ByteString.copyFrom(BankAccount.encodeAmount(amount))));
                    }
                    o.onNext(b.setTotalMessages(b.getMessagesCount()).build());
                    o.onCompleted();
                  }
                })
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  private static WorkerPiece piece(String id, byte[] state) {
    CRC32C crc = new CRC32C();
    crc.update(state);
    return WorkerPiece.newBuilder()
        .setWorkerId(id)
        .setMeta(
            LocalSnapshotMeta.newBuilder()
                .setStateBytes(state.length)
                .setStateCrc32C((int) crc.getValue()))
        .build();
  }

  private void store(long id, long balanceA, long balanceB, String... workers) {
    Topology.Builder t = Topology.newBuilder();
    SnapshotManifest.Builder m =
        SnapshotManifest.newBuilder()
            .setSnapshotId(id)
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    for (String w : workers) {
      String other = w.equals("a") ? "b" : "a";
      t.addWorkers(WorkerDecl.newBuilder().setWorkerId(w).addOutgoing(other).addIncoming(other));
      m.addPieces(piece(w, BankAccount.encodeBalance(w.equals("a") ? balanceA : balanceB)));
    }
    manifests.put(id, m.setTopology(t).build());
  }

  private SnapshotChecker checker(SnapshotChecker.StateSource states) {
    return new SnapshotChecker(
        () -> AdminGrpc.newBlockingStub(channel), states, Set.of("a", "b"), 200);
  }

  private static SnapshotChecker.StateSource balances(long a, long b) {
    return (m, p) -> BankAccount.encodeBalance(p.getWorkerId().equals("a") ? a : b);
  }

  @Test
  void aCutWhoseMoneyAddsUpIsConserved() {
    store(1, 90, 95, "a", "b");
    channels.put("a->b", List.of(10L));
    channels.put("b->a", List.of(5L));
    SnapshotChecker.Outcome o = checker(balances(90, 95)).check(1);
    assertThat(o.kind()).isEqualTo(SnapshotChecker.Kind.CONSERVED);
    assertThat(o.result().inFlightMessages()).isEqualTo(2);
  }

  @Test
  void aCutThatLostATransferInFlightIsAViolation() {
    store(1, 90, 95, "a", "b");
    channels.put("a->b", List.of(10L));
    SnapshotChecker.Outcome o = checker(balances(90, 95)).check(1);
    assertThat(o.kind()).isEqualTo(SnapshotChecker.Kind.VIOLATED);
    assertThat(o.detail()).contains("off by -5");
  }

  @Test
  void aStateThatCannotBeReadIsAViolationThatSaysWhyUnlessTheSnapshotWasDeletedMeanwhile() {
    store(1, 100, 100, "a", "b");
    SnapshotChecker.StateSource failing =
        (m, p) -> {
          throw new IllegalStateException(); // no message of its own
        };
    SnapshotChecker.Outcome o = checker(failing).check(1);
    assertThat(o.kind()).isEqualTo(SnapshotChecker.Kind.VIOLATED);
    assertThat(o.detail())
        .isEqualTo("the state of a cannot be read: java.lang.IllegalStateException");
    assertThat(checker((m, p) -> new byte[0]).check(1).detail())
        .isEqualTo(
            "the state of a cannot be read: java.lang.IllegalArgumentException: a bank state is 8"
                + " bytes, got 0");

    SnapshotChecker.StateSource deletedWhileRead =
        (m, p) -> {
          manifests.remove(m.getSnapshotId()); // as retention does
          return new byte[0];
        };
    assertThat(checker(deletedWhileRead).check(1).kind()).isEqualTo(SnapshotChecker.Kind.GONE);
  }

  @Test
  void capturedStateIsUsedOnlyWhenItMatchesTheStoredChecksum() {
    store(1, 100, 100, "a", "b");
    CaptureLog log = new CaptureLog();
    log.record("a", 1, BankAccount.encodeBalance(100));
    log.record("b", 1, BankAccount.encodeBalance(100));
    assertThat(checker(SnapshotChecker.fromCaptures(log)).check(1).kind())
        .isEqualTo(SnapshotChecker.Kind.CONSERVED);

    log.record("b", 1, BankAccount.encodeBalance(99));
    SnapshotChecker.Outcome o = checker(SnapshotChecker.fromCaptures(log)).check(1);
    assertThat(o.kind()).isEqualTo(SnapshotChecker.Kind.VIOLATED);
    assertThat(o.detail()).contains("stored state of b differs");

    assertThat(checker(SnapshotChecker.fromCaptures(new CaptureLog())).check(1).detail())
        .contains("never captured");
  }

  @Test
  void aCutThatDoesNotCoverEveryAccountIsNotJudgedAndAMissingOneIsGone() {
    store(2, 100, 0, "a");
    assertThat(checker(balances(100, 0)).check(2).kind()).isEqualTo(SnapshotChecker.Kind.PARTIAL);
    assertThat(checker(balances(100, 100)).check(3).kind()).isEqualTo(SnapshotChecker.Kind.GONE);
  }
}
