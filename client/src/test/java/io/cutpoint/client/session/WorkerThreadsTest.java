package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.StartSnapshot;
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
 * A worker with its coordinator session owns one thread, its event loop: the session's commands and
 * uploads run there, and no {@code cutpoint-session-*} thread exists. The timer and Netty's I/O
 * threads are shared by every worker of the process, however many there are.
 */
class WorkerThreadsTest {

  private static final int MAX_DEDICATED = 1;

  private final InProcessCoordinator coordinator = new InProcessCoordinator();
  private final List<Worker> workers = new ArrayList<>();
  private final List<CoordinatorSession> sessions = new ArrayList<>();

  @AfterEach
  void tearDown() {
    sessions.forEach(CoordinatorSession::close);
    workers.forEach(Worker::close);
    coordinator.close();
  }

  @Test
  void oneWorkerOwnsOneThreadItsEventLoop() throws Exception {
    startRing(1);
    snapshotUploadedBy(1);
    assertDedicatedThreads(1);
  }

  @Test
  void severalWorkersInOneProcessShareTheTimerAndTheIoThreads() throws Exception {
    startRing(5);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> workers.get(0).allAcknowledged() && workers.get(0).sentCount("thr-1") == 1);
    snapshotUploadedBy(5);
    assertDedicatedThreads(5);
    assertThat(named("cutpoint-timer")).as("shared timers").hasSize(1);
    assertThat(named("cutpoint-io"))
        .as("shared I/O threads")
        .hasSizeBetween(1, Runtime.getRuntime().availableProcessors());
  }

  /** Workers thr-0 .. thr-(n-1) in a ring (none for one worker), each joined, each having sent. */
  private void startRing(int n) throws Exception {
    for (int i = 0; i < n; i++) {
      Worker.Builder b =
          Worker.builder("thr-" + i)
              .stateHandler(new Stateless())
              .messageHandler((from, seq, payload) -> {});
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
    coordinator.fake.send(
        CoordinatorMessage.newBuilder()
            .setStartSnapshot(StartSnapshot.newBuilder().setSnapshotId(1).setEpoch(0))
            .build());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                coordinator.fake.uploads.size() == n
                    && coordinator.fake.uploads.stream()
                        .allMatch(u -> u.status != null && u.status.isOk()));
  }

  private static void assertDedicatedThreads(int workers) {
    for (int i = 0; i < workers; i++) {
      String id = "thr-" + i;
      Set<String> own =
          Thread.getAllStackTraces().keySet().stream()
              .filter(Thread::isAlive)
              .map(Thread::getName)
              .filter(name -> name.startsWith("cutpoint-") && name.contains("-" + id + "-"))
              .collect(Collectors.toSet());
      assertThat(own)
          .as("threads of worker %s", id)
          .isNotEmpty()
          .isSubsetOf("cutpoint-" + id + "-events")
          .hasSizeLessThanOrEqualTo(MAX_DEDICATED);
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
