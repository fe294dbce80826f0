package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.GetClusterRequest;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A standby's refusal of a worker's call is held back while it would name no leader, the leader the
 * worker could not reach, or this port's own coordinator still starting; it names the leader as
 * soon as there is one worth trying.
 */
class StandbyHoldsRefusalsTest {

  private static final Metadata.Key<String> UNREACHABLE = HeldRefusals.UNREACHABLE;

  private final String name = InProcessServerBuilder.generateName();
  private final AtomicReference<Optional<String>> leader = new AtomicReference<>(Optional.empty());
  private final AtomicBoolean starting = new AtomicBoolean();
  private LeaderPort port;
  private Server term;
  private ManagedChannel channel;

  private void start(Duration maxHold) throws Exception {
    port =
        LeaderPort.start(
            InProcessServerBuilder.forName(name).directExecutor(),
            new LeaderPort.Election() {
              @Override
              public Optional<String> leader() {
                return leader.get();
              }

              @Override
              public boolean starting() {
                return starting.get();
              }
            },
            maxHold);
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    if (term != null) {
      term.shutdownNow();
    }
    if (port != null) {
      port.close();
    }
  }

  /** Opens a worker's session stream; completes with the status it ends with. */
  private CompletableFuture<Status> join(String unreachable) {
    Metadata headers = new Metadata();
    if (unreachable != null) {
      headers.put(UNREACHABLE, unreachable);
    }
    CompletableFuture<Status> ended = new CompletableFuture<>();
    var unused =
        CoordinatorGrpc.newStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
            .session(
                new StreamObserver<CoordinatorMessage>() {
                  @Override
                  public void onNext(CoordinatorMessage m) {}

                  @Override
                  public void onError(Throwable t) {
                    ended.complete(Status.fromThrowable(t));
                  }

                  @Override
                  public void onCompleted() {
                    ended.complete(Status.OK);
                  }
                });
    return ended;
  }

  private static String description(CompletableFuture<Status> call) throws Exception {
    Status s = call.get(10, TimeUnit.SECONDS);
    assertThat(s.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    return s.getDescription();
  }

  @Test
  void aWorkerThatReachedNoOtherCoordinatorIsToldTheLeaderAtOnce() throws Exception {
    start(Duration.ofMinutes(1));
    leader.set(Optional.of("a:1"));

    assertThat(description(join(null))).isEqualTo("not the leader; the leader is a:1");
    assertThat(description(join("b:1"))).isEqualTo("not the leader; the leader is a:1");
  }

  @Test
  void theLeaderTheWorkerCouldNotReachIsNotNamedTheRefusalWaitsForItsSuccessor() throws Exception {
    start(Duration.ofMinutes(1));
    leader.set(Optional.of("a:1"));

    CompletableFuture<Status> held = join("a:1");
    CompletableFuture<Status> noLeaderYet = join("a:1");
    assertThat(held).as("held while the unreachable leader is named").isNotDone();
    leader.set(Optional.empty()); // a's latch went with its session; nobody won yet
    leader.set(Optional.of("c:1"));

    assertThat(description(held)).isEqualTo("not the leader; the leader is c:1");
    assertThat(description(noLeaderYet)).isEqualTo("not the leader; the leader is c:1");
  }

  @Test
  void withNoLeaderTheRefusalWaitsForOne() throws Exception {
    start(Duration.ofMinutes(1));

    CompletableFuture<Status> held = join(null);
    assertThat(held).as("held while no leader is known").isNotDone();
    leader.set(Optional.of("c:1"));

    assertThat(description(held)).isEqualTo("not the leader; the leader is c:1");
  }

  @Test
  void aPortWhoseCoordinatorIsStartingHoldsItsWorkersUntilItServes() throws Exception {
    start(Duration.ofMinutes(1));
    leader.set(Optional.of("s:1"));
    starting.set(true);

    CompletableFuture<Status> held = join(null);
    assertThat(held).as("held while the coordinator starts").isNotDone();
    term =
        port.builder(1)
            .addService(new CoordinatorGrpc.CoordinatorImplBase() {}) // answers UNIMPLEMENTED
            .build()
            .start();

    assertThat(description(held)).isEqualTo("not the leader; the leader is s:1");
    assertThat(join(null).get(10, TimeUnit.SECONDS).getCode())
        .as("the next call reaches the term's own service")
        .isEqualTo(Status.Code.UNIMPLEMENTED);
  }

  @Test
  void aRefusalIsHeldAtMostTheLongestHold() throws Exception {
    start(Duration.ofMillis(200));
    leader.set(Optional.of("a:1"));

    assertThat(description(join("a:1"))).isEqualTo("not the leader; the leader is a:1");
  }

  @Test
  void adminCallsAreNeverHeld() throws Exception {
    start(Duration.ofMinutes(1));

    Metadata headers = new Metadata();
    headers.put(UNREACHABLE, "a:1");
    assertThatThrownBy(
            () ->
                AdminGrpc.newBlockingStub(channel)
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .getCluster(GetClusterRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e ->
                assertThat(e.getStatus().getDescription())
                    .isEqualTo("not the leader; no leader is elected yet"));
  }
}
