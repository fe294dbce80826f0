package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.WorkerMessage.BodyCase;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reconnects, join refusals, join timeouts and closing. */
class SessionLifecycleTest {

  private final InProcessCoordinator coordinator = new InProcessCoordinator();
  private final FakeCoordinator fake = coordinator.fake;
  private final FakeWorker worker = new FakeWorker("lc", List.of("a"), List.of("b"));
  private final List<SessionState> states = new CopyOnWriteArrayList<>();
  private final List<Status> fatal = new CopyOnWriteArrayList<>();
  private CoordinatorSession session;

  @AfterEach
  void tearDown() {
    if (session != null) {
      session.close();
    }
    coordinator.close();
  }

  private CoordinatorSession start(SessionOptions options) {
    session = new CoordinatorSession(coordinator.channel, worker, options);
    session.addListener(
        new SessionListener() {
          @Override
          public void stateChanged(SessionState from, SessionState to) {
            states.add(to);
          }

          @Override
          public void fatal(Status status) {
            fatal.add(status);
          }
        });
    return session.start();
  }

  private static SessionOptions fast() {
    return SessionOptions.defaults().withReconnect(Duration.ofMillis(10), Duration.ofMillis(100));
  }

  @Test
  void theWorkerRejoinsByItselfAfterTheCoordinatorRestarts() throws Exception {
    start(fast()).joined().get(5, TimeUnit.SECONDS);
    worker.epoch.set(4); // the worker moved on (e.g. a rollback) before the coordinator died
    coordinator.stop();
    await().atMost(Duration.ofSeconds(5)).until(() -> session.state() == SessionState.CONNECTING);
    CompletableFuture<Long> request = session.requestSnapshot();
    assertThat(request).isCompletedExceptionally();

    coordinator.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> fake.joins.size() >= 2 && session.state() == SessionState.JOINED);
    assertThat(fake.joins.get(fake.joins.size() - 1).getEpoch()).isEqualTo(4);
    int beats = fake.received(BodyCase.HEARTBEAT).size();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> fake.received(BodyCase.HEARTBEAT).size() > beats + 2);
    assertThat(states)
        .containsSubsequence(SessionState.JOINED, SessionState.CONNECTING, SessionState.JOINED);
  }

  @Test
  void aPendingSnapshotRequestFailsWhenTheSessionIsLost() throws Exception {
    start(fast()).joined().get(5, TimeUnit.SECONDS);
    CompletableFuture<Long> pending = session.requestSnapshot();
    await().until(() -> fake.received(BodyCase.SNAPSHOT_REQUEST).size() == 1);
    coordinator.stop();
    assertThat(pending)
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(IllegalStateException.class)
        .withMessageContaining("ended");
  }

  @Test
  void aJoinRefusedAsAlreadyExistingIsRetriedWithBackoff() throws Exception {
    fake.refusals.add(Status.ALREADY_EXISTS.withDescription("worker lc has a live session"));
    fake.refusals.add(Status.ALREADY_EXISTS.withDescription("worker lc has a live session"));
    start(fast()).joined().get(5, TimeUnit.SECONDS);
    assertThat(fake.joins).hasSize(3);
    assertThat(session.state()).isEqualTo(SessionState.JOINED);
    assertThat(fatal).isEmpty();
  }

  @Test
  void aJoinRefusedAsInvalidIsFatalAndNotRetried() {
    fake.refusals.add(Status.INVALID_ARGUMENT.withDescription("bad worker id"));
    start(fast());
    assertThat(session.joined())
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(StatusException.class)
        .withMessageContaining("bad worker id");
    assertThat(session.closedFuture()).isCompletedExceptionally();
    assertThat(session.state()).isEqualTo(SessionState.CLOSED);
    assertThat(fatal)
        .singleElement()
        .satisfies(s -> assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    // A retrying session would not be CLOSED. Every retry runs on the session's own timer: once
    // close() has stopped its threads, no join can follow, and the count is final.
    session.close();
    await().atMost(Duration.ofSeconds(5)).until(() -> sessionThreads().isEmpty());
    assertThat(fake.joins).hasSize(1);
  }

  @Test
  void aFatalRefusalFreesTheSessionThreadsWithoutAClose() {
    fake.refusals.add(Status.PERMISSION_DENIED.withDescription("worker lc is not allowed"));
    start(fast());
    assertThat(session.closedFuture()).failsWithin(Duration.ofSeconds(5));
    await().atMost(Duration.ofSeconds(5)).until(() -> sessionThreads().isEmpty());
    assertThat(session.state()).isEqualTo(SessionState.CLOSED);
    assertThat(fake.joins).hasSize(1);
  }

  @Test
  void aJoinContradictingTheTopologyIsFatal() {
    fake.refusals.add(Status.FAILED_PRECONDITION.withDescription("lc does not send to a"));
    start(fast());
    assertThat(session.joined()).failsWithin(Duration.ofSeconds(5));
    assertThat(fatal)
        .singleElement()
        .satisfies(s -> assertThat(s.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
  }

  @Test
  void aJoinWithoutWelcomeTimesOutAndIsRetried() throws Exception {
    fake.ignoreJoins.set(1);
    start(fast().withJoinTimeout(Duration.ofMillis(200))).joined().get(5, TimeUnit.SECONDS);
    assertThat(fake.joins).hasSize(2);
  }

  @Test
  void closeLeavesGracefullyFreesItsThreadsAndIsIdempotent() throws Exception {
    start(fast()).joined().get(5, TimeUnit.SECONDS);
    assertThat(sessionThreads()).isNotEmpty();
    session.close();
    assertThat(fake.leaves).hasValue(1);
    assertThat(session.state()).isEqualTo(SessionState.CLOSED);
    assertThat(session.closedFuture()).isCompleted();
    await().atMost(Duration.ofSeconds(5)).until(() -> sessionThreads().isEmpty());
    session.close();
    assertThat(session.requestSnapshot()).isCompletedExceptionally();
    // Heartbeats come from the session's timer thread, gone since close: no heartbeat can follow.
    assertThat(session.state()).isEqualTo(SessionState.CLOSED);
    assertThat(sessionThreads()).isEmpty();
  }

  @Test
  void closeFromAListenerCompletesOnAnotherThread() throws Exception {
    session = new CoordinatorSession(coordinator.channel, worker, fast());
    CoordinatorSession s = session;
    session.addListener(
        new SessionListener() {
          @Override
          public void stateChanged(SessionState from, SessionState to) {
            if (to == SessionState.JOINED) {
              s.close();
            }
          }
        });
    session.start();
    session.closedFuture().get(5, TimeUnit.SECONDS);
    assertThat(session.state()).isEqualTo(SessionState.CLOSED);
    assertThat(fake.leaves).hasValue(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> sessionThreads().isEmpty());
  }

  @Test
  void closeWhileReconnectingStopsRetrying() throws Exception {
    start(fast()).joined().get(5, TimeUnit.SECONDS);
    coordinator.stop();
    await().atMost(Duration.ofSeconds(5)).until(() -> session.state() == SessionState.CONNECTING);
    session.close();
    await().atMost(Duration.ofSeconds(5)).until(() -> sessionThreads().isEmpty());
    coordinator.start();
    // Reconnects are scheduled on the session's timer, whose thread is gone: nothing can rejoin.
    assertThat(sessionThreads()).isEmpty();
    assertThat(fake.joins).hasSize(1);
  }

  @Test
  void connectBuildsAndClosesItsOwnNettyChannel() throws Exception {
    FakeCoordinator tcp = new FakeCoordinator();
    Server server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(tcp)
            .build()
            .start();
    try {
      FakeWorker w = new FakeWorker("tcp", List.of(), List.of());
      CoordinatorSession s = CoordinatorSession.connect("localhost:" + server.getPort(), w, fast());
      try {
        s.joined().get(10, TimeUnit.SECONDS);
        assertThat(tcp.joins)
            .singleElement()
            .satisfies(j -> assertThat(j.getWorkerId()).isEqualTo("tcp"));
        // A 64 MiB state over real HTTP/2 flow control, reassembled on the other side.
        byte[] state = Pieces.state(64 << 20, 64);
        long started = System.nanoTime();
        w.listener()
            .completed(
                new io.cutpoint.client.engine.CompletedLocalSnapshot(
                    new io.cutpoint.cut.LocalSnapshot(
                        3,
                        "tcp",
                        new java.util.TreeMap<>(),
                        new java.util.TreeMap<>(),
                        new java.util.TreeMap<>(),
                        null),
                    io.cutpoint.client.engine.CapturedState.of(state),
                    0));
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> tcp.uploads.size() == 1 && tcp.uploads.get(0).status != null);
        System.out.println(
            "64 MiB upload over Netty on loopback: "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
                + " ms");
        PieceAssembler assembler = new PieceAssembler(3, "tcp");
        for (var p : Pieces.asDownload(tcp.uploads.get(0).parts)) {
          assembler.accept(p);
        }
        assertThat(assembler.finish().state()).isEqualTo(state);
      } finally {
        s.close();
      }
      assertThat(tcp.leaves).hasValue(1);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> threadsNamed("cutpoint-session-tcp").isEmpty());
    } finally {
      server.shutdownNow();
      server.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static List<Thread> sessionThreads() {
    return threadsNamed("cutpoint-session-lc");
  }

  private static List<Thread> threadsNamed(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(prefix) && t.isAlive())
        .toList();
  }
}
