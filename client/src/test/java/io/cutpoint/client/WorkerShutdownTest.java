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

  private static Set<String> workerThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith("cutpoint-") || n.startsWith("grpc-"))
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
    await().atMost(Duration.ofSeconds(30)).until(() -> workerThreads().isEmpty());
    int threadsBefore = Thread.activeCount();
    List<Integer> ports;
    BankCluster bank = new BankCluster(BankCluster.complete("a", "b", "c"), 10_000, 10_000_000,
        UnaryOperator.identity()).connectDirectly();
    try {
      bank.kickAll(16);
      await().until(() -> bank.accounts.values().stream().mapToLong(BankAccount::received).sum() > 2_000);
      bank.workers.get("a").startSnapshot(1);
      await().until(() -> bank.complete(1));
      ports = bank.workers.values().stream()
          .map(w -> Integer.parseInt(w.channelAddress().substring(w.channelAddress().lastIndexOf(':') + 1)))
          .toList();
      assertThat(ports).noneMatch(WorkerShutdownTest::bindable);
      assertThat(workerThreads()).anyMatch(n -> n.startsWith("cutpoint-a-events"));
    } finally {
      bank.close();
    }
    bank.close(); // twice is harmless
    assertThat(ports).allMatch(WorkerShutdownTest::bindable);
    await().atMost(Duration.ofSeconds(30)).until(() -> workerThreads().isEmpty());
    await().atMost(Duration.ofSeconds(30)).until(() -> Thread.activeCount() <= threadsBefore);
  }

  @Test
  void aWorkerThatWasBuiltButNeverStartedHoldsNothing() {
    int before = Thread.activeCount();
    Worker w = Worker.builder("idle").outgoing("x").stateHandler(new NoState())
        .messageHandler((f, s, p) -> {}).build();
    assertThat(Thread.activeCount()).isEqualTo(before);
    w.close();
  }

  @Test
  void aPortInUseIsAClearErrorAndLeavesNoThreadBehind() throws IOException {
    await().atMost(Duration.ofSeconds(30)).until(() -> workerThreads().isEmpty());
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Worker w = Worker.builder("late").listenOn("127.0.0.1", taken.getLocalPort())
          .stateHandler(new NoState()).messageHandler((f, s, p) -> {}).build();
      assertThatThrownBy(w::start).isInstanceOf(java.io.UncheckedIOException.class)
          .hasMessageContaining("cannot listen on 127.0.0.1:" + taken.getLocalPort());
      w.close();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> workerThreads().isEmpty());
  }
}
