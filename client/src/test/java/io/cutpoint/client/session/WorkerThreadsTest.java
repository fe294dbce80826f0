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
 * A worker with its coordinator session owns at most 3 threads (its event loop, the session's event
 * thread and its upload thread); the timer and Netty's I/O threads are shared by every worker of
 * the process, however many there are.
 */
class WorkerThreadsTest {

  private static final int MAX_DEDICATED = 3;

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
  void oneWorkerOwnsAtMostThreeThreads() throws Exception {
    startRing(1);
    assertDedicatedThreads(1);
  }

  @Test
  void severalWorkersInOneProcessShareTheTimerAndTheIoThreads() throws Exception {
    startRing(5);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> workers.get(0).allAcknowledged() && workers.get(0).sentCount("thr-1") == 1);
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
          .isSubsetOf(
              "cutpoint-" + id + "-events",
              "cutpoint-session-" + id + "-events",
              "cutpoint-session-" + id + "-upload")
          .hasSizeLessThanOrEqualTo(MAX_DEDICATED);
    }
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
