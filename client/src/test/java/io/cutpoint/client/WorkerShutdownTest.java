package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class WorkerShutdownTest {

  /** Threads of this test's workers (ids start with "shut-"; no other test uses them). */
  private static Set<String> workerThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith("cutpoint-shut-"))
        .collect(Collectors.toSet());
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void closingWorkersUnderTrafficReleasesEveryPortAndThread() {
    Set<Thread> threadsBefore = Set.copyOf(Thread.getAllStackTraces().keySet());
    List<Integer> ports;
    BankCluster bank =
        new BankCluster(
                BankCluster.complete("shut-a", "shut-b", "shut-c"),
                10_000,
                10_000_000,
                UnaryOperator.identity())
            .connectDirectly();
    try {
      bank.kickAll(16);
      await()
          .until(
              () -> bank.accounts.values().stream().mapToLong(BankAccount::received).sum() > 2_000);
      bank.workers.get("shut-a").startSnapshot(1);
      await().until(() -> bank.complete(1));
      ports =
          bank.workers.values().stream()
              .map(
                  w ->
                      Integer.parseInt(
                          w.channelAddress().substring(w.channelAddress().lastIndexOf(':') + 1)))
              .toList();
      assertThat(ports).noneMatch(WorkerShutdownTest::bindable);
      assertThat(workerThreads())
          .as("threads the workers own: one event loop each")
          .containsExactlyInAnyOrder(
              "cutpoint-shut-a-events", "cutpoint-shut-b-events", "cutpoint-shut-c-events");
    } finally {
      bank.close();
    }
    bank.close(); // twice is harmless
    assertThat(ports).allMatch(WorkerShutdownTest::bindable);
    await().atMost(Duration.ofSeconds(30)).until(() -> workerThreads().isEmpty());
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(
                        Thread.getAllStackTraces().keySet().stream()
                            .filter(
                                t ->
                                    t.isAlive()
                                        && !threadsBefore.contains(t)
                                        && t != Thread.currentThread())
                            .map(Thread::getName))
                    .as("threads started during the test and still alive")
                    .isEmpty());
  }

  /** Live threads that Cutpoint started (all of its thread names begin with "cutpoint-"). */
  private static Set<Thread> cutpointThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("cutpoint-"))
        .collect(Collectors.toSet());
  }

  @Test
  void aWorkerThatWasBuiltButNeverStartedHoldsNothing() {
    // Compared by name, not with Thread.activeCount(): threads of the JVM, of gRPC and of earlier
    // test classes come and go on their own while this test runs.
    Set<Thread> before = cutpointThreads();
    Worker w =
        Worker.builder("shut-idle")
            .outgoing("x")
            .stateHandler(new NoState())
            .messageHandler((f, s, p) -> {})
            .build();
    assertThat(cutpointThreads()).as("Cutpoint threads after build()").isSubsetOf(before);
    w.close();
    assertThat(cutpointThreads()).as("Cutpoint threads after close()").isSubsetOf(before);
  }

  @Test
  void aPortInUseIsAClearErrorAndLeavesNoThreadBehind() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Worker w =
          Worker.builder("shut-late")
              .listenOn("127.0.0.1", taken.getLocalPort())
              .stateHandler(new NoState())
              .messageHandler((f, s, p) -> {})
              .build();
      assertThatThrownBy(w::start)
          .isInstanceOf(java.io.UncheckedIOException.class)
          .hasMessageContaining("cannot listen on 127.0.0.1:" + taken.getLocalPort());
      w.close();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> workerThreads().isEmpty());
  }
}
