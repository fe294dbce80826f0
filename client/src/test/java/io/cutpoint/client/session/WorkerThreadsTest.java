package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.StateHandler;
import io.cutpoint.client.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A worker with its coordinator session owns one thread, its event loop, a Netty event loop that
 * carries its channels too, so its handlers run where its frames are read; the session's commands
 * and uploads run there as well, and no {@code cutpoint-session-*} thread exists. The timer is
 * shared by every worker of the process, however many there are. A worker built with a shared event
 * loop owns no thread: it runs on one of the process's shared I/O loops.
 */
class WorkerThreadsTest {

  private final InProcessCoordinator coordinator = new InProcessCoordinator();
  private final List<Worker> workers = new ArrayList<>();
  private final List<CoordinatorSession> sessions = new ArrayList<>();
  private final java.util.Map<String, String> handlerThreads =
      new java.util.concurrent.ConcurrentHashMap<>();

  @AfterEach
  void tearDown() {
    sessions.forEach(CoordinatorSession::close);
    workers.forEach(Worker::close);
    coordinator.close();
  }

  @Test
  void aWorkerOwnsOneThreadItsEventLoop() throws Exception {
    startRing(1, false);
    snapshotUploadedBy(1);
    assertOwnThreads(1, Set.of("cutpoint-thr-0-events"));
    assertThat(named("cutpoint-io")).as("shared I/O threads").isEmpty();
  }

  @Test
  void aWorkerOnASharedLoopOwnsNoThread() throws Exception {
    startRing(1, true);
    snapshotUploadedBy(1);
    assertOwnThreads(1, Set.of());
    assertThat(named("cutpoint-io")).as("shared I/O threads").isNotEmpty();
  }

  @Test
  void handlersRunOnTheEventLoopThatCarriesTheWorkersChannels() throws Exception {
    startRing(3, false);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> workers.stream().allMatch(w -> handlerThreads.containsKey(w.workerId())));
    for (Worker w : workers) {
      java.util.concurrent.CompletableFuture<String> loopThread =
          new java.util.concurrent.CompletableFuture<>();
      w.execute(() -> loopThread.complete(Thread.currentThread().getName()));
      assertThat(handlerThreads.get(w.workerId()))
          .as("the thread of %s's message handler", w.workerId())
          .isEqualTo("cutpoint-" + w.workerId() + "-events")
          .isEqualTo(loopThread.get(5, TimeUnit.SECONDS));
    }
  }

  @Test
  void severalWorkersInOneProcessShareTheTimer() throws Exception {
    fiveInARingSnapshotted(false);
    assertOwnThreads(5, Set.of("cutpoint-thr-0-events"));
    assertThat(named("cutpoint-timer")).as("shared timers").hasSize(1);
    assertThat(named("cutpoint-io")).as("shared I/O threads").isEmpty();
  }

  @Test
  void severalWorkersOnSharedLoopsShareTheTimerAndTheIoThreads() throws Exception {
    fiveInARingSnapshotted(true);
    assertOwnThreads(5, Set.of());
    assertThat(named("cutpoint-timer")).as("shared timers").hasSize(1);
    assertThat(named("cutpoint-io"))
        .as("shared I/O threads")
        .hasSizeBetween(1, Runtime.getRuntime().availableProcessors());
  }

  /** Five workers in a ring, their first messages acknowledged, and a snapshot uploaded by all. */
  private void fiveInARingSnapshotted(boolean sharedLoops) throws Exception {
    startRing(5, sharedLoops);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> workers.get(0).allAcknowledged() && workers.get(0).sentCount("thr-1") == 1);
    snapshotUploadedBy(5);
  }

  /**
   * Workers thr-0 .. thr-(n-1), on shared event loops or not, in a ring (none for one worker), each
   * joined, each having sent.
   */
  private void startRing(int n, boolean sharedLoops) throws Exception {
    for (int i = 0; i < n; i++) {
      String id = "thr-" + i;
      Worker.Builder b =
          Worker.builder(id)
              .sharedEventLoop(sharedLoops)
              .stateHandler(new Stateless())
              .messageHandler(
                  (from, seq, payload) -> handlerThreads.put(id, Thread.currentThread().getName()));
      if (n > 1) {
        b.outgoing("thr-" + (i + 1) % n).incoming("thr-" + (i + n - 1) % n);
      }
      workers.add(b.build().start());
    }
    for (Worker w : workers) {
      for (Worker peer : workers) {
        if (peer != w) {
          w.updatePeers(java.util.Map.of(peer.workerId(), peer.channelAddress()));
        }
      }
      CoordinatorSession s =
          new CoordinatorSession(coordinator.channel, w, SessionOptions.defaults());
      sessions.add(s);
      s.start().joined().get(5, TimeUnit.SECONDS);
      if (n > 1) {
        w.send(w.outgoing().first(), new byte[] {1});
      }
    }
  }

  /**
   * Starts a snapshot on the last session to join and waits until all {@code n} workers uploaded
   * their pieces: the commands and the uploads ran, on whatever threads the workers own.
   */
  private void snapshotUploadedBy(int n) {
    coordinator.fake.startSnapshot(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> coordinator.fake.uploadedOk(n));
  }

  /** Each of {@code workers} owns exactly the threads {@code expected} names for thr-0. */
  private static void assertOwnThreads(int workers, Set<String> expected) {
    for (int i = 0; i < workers; i++) {
      String id = "thr-" + i;
      Set<String> own =
          Thread.getAllStackTraces().keySet().stream()
              .filter(Thread::isAlive)
              .map(Thread::getName)
              .filter(name -> name.startsWith("cutpoint-") && name.contains("-" + id + "-"))
              .collect(Collectors.toSet());
      Set<String> want =
          expected.stream().map(n -> n.replace("thr-0", id)).collect(Collectors.toSet());
      assertThat(own).as("threads of worker %s", id).isEqualTo(want);
    }
    assertThat(named("cutpoint-session-")).as("session threads").isEmpty();
  }

  private static List<String> named(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith(prefix))
        .toList();
  }

  private static final class Stateless implements StateHandler {
    @Override
    public byte[] capture() {
      return new byte[0];
    }

    @Override
    public void restore(byte[] state) {}
  }
}
