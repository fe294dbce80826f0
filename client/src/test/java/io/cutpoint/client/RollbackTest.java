package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.testing.Parked;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class RollbackTest {

  private static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static LocalSnapshot piece(
      String worker,
      Map<String, Long> sent,
      Map<String, Long> received,
      Map<String, List<InTransitMessage>> recordings) {
    return new LocalSnapshot(
        7, worker, new TreeMap<>(sent), new TreeMap<>(received), new TreeMap<>(recordings), null);
  }

  @Test
  void afterRestoreRecordedMessagesComeFirstInOrderThenNewTrafficAndCountersContinue()
      throws Exception {
    List<String> seenByB = new CopyOnWriteArrayList<>();
    CountDownLatch stall = new CountDownLatch(1);
    CountDownLatch stalled = new CountDownLatch(1);
    StateHandler bState =
        new StateHandler() {
          @Override
          public byte[] capture() {
            return text("b");
          }

          @Override
          public void restore(byte[] state) {
            seenByB.clear(); // what b saw before the rollback no longer happened
            seenByB.add("restored " + new String(state, StandardCharsets.UTF_8));
          }
        };
    try (Worker b =
            Worker.builder("b")
                .incoming("a", "c")
                .stateHandler(bState)
                .messageHandler(
                    (from, seq, payload) -> {
                      if (new String(payload, StandardCharsets.UTF_8).equals("stall")) {
                        try {
                          stalled.countDown();
                          stall.await();
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                      }
                      seenByB.add(from + seq + ":" + new String(payload, StandardCharsets.UTF_8));
                    })
                .build()
                .start();
        Worker a =
            Worker.builder("a")
                .outgoing("b")
                .stateHandler(new NoState())
                .messageHandler((f, s, p) -> {})
                .peers(Map.of("b", b.channelAddress()))
                .build()
                .start();
        Worker c =
            Worker.builder("c")
                .outgoing("b")
                .stateHandler(new NoState())
                .messageHandler((f, s, p) -> {})
                .peers(Map.of("b", b.channelAddress()))
                .build()
                .start()) {
      for (int i = 1; i <= 5; i++) {
        a.send("b", text("old" + i));
      }
      await().until(() -> b.receivedCount("a") == 5);
      c.send("b", text("stall"));
      await().until(() -> stalled.getCount() == 0);
      // b is stuck in its handler; more old-epoch traffic piles up in front of it.
      for (int i = 6; i <= 300; i++) {
        a.send("b", text("old" + i));
        c.send("b", text("old" + i));
      }

      a.halt(1);
      c.halt(1);
      CompletableFuture<Void> haltB = CompletableFuture.runAsync(() -> b.halt(1));
      AtomicReference<Thread> sender = new AtomicReference<>();
      CompletableFuture<Long> sendWhileHalted =
          CompletableFuture.supplyAsync(
              () -> {
                sender.set(Thread.currentThread());
                return a.send("b", text("new-early"));
              });
      // The send waits in Worker.send through the halt: once its thread is parked there, it has not
      // returned.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> sendWhileHalted.isDone() || Parked.in(sender.get(), Worker.class, "send"));
      assertThat(sendWhileHalted).as("a send while halted").isNotDone();
      stall.countDown();
      haltB.get();
      assertThat(List.of(a.epoch(), b.epoch(), c.epoch())).containsOnly(1L);

      a.restore(1, piece("a", Map.of("b", 8L), Map.of(), Map.of()), new byte[0]);
      c.restore(1, piece("c", Map.of("b", 3L), Map.of(), Map.of()), new byte[0]);
      b.restore(
          1,
          piece(
              "b",
              Map.of(),
              Map.of("a", 5L, "c", 3L),
              Map.of(
                  "a",
                  List.of(
                      new InTransitMessage(6, text("rec6")),
                      new InTransitMessage(7, text("rec7")),
                      new InTransitMessage(8, text("rec8"))))),
          text("state@7"));

      a.resume(1); // a's traffic of the new epoch reaches b before b resumes: b must hold it back
      c.resume(1);
      assertThat(sendWhileHalted.get()).as("the send that waited through the halt").isEqualTo(9);
      assertThat(a.send("b", text("new10"))).isEqualTo(10);
      assertThat(c.send("b", text("new-c"))).isEqualTo(4);
      assertThat(seenByB).containsExactly("restored state@7");
      b.resume(1);

      await().atMost(Duration.ofSeconds(5)).until(() -> seenByB.size() == 7);
      List<String> fromA = seenByB.stream().filter(s -> s.startsWith("a")).toList();
      assertThat(fromA)
          .containsExactly("a6:rec6", "a7:rec7", "a8:rec8", "a9:new-early", "a10:new10");
      assertThat(seenByB).contains("c4:new-c");
      assertThat(b.receivedCount("a")).isEqualTo(10);
      assertThat(b.receivedCount("c")).isEqualTo(4);
      assertThat(a.sentCount("b")).isEqualTo(10);
      await().atMost(Duration.ofSeconds(5)).until(() -> a.allAcknowledged() && c.allAcknowledged());
    }
  }

  @Test
  void restoreRefusesWrongEpochsAndForeignPieces() {
    try (Worker a =
        Worker.builder("a")
            .incoming("b")
            .stateHandler(new NoState())
            .messageHandler((f, s, p) -> {})
            .build()
            .start()) {
      assertThatThrownBy(() -> a.restore(0, piece("a", Map.of(), Map.of(), Map.of()), new byte[0]))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("halted");
      a.halt(3);
      assertThatThrownBy(() -> a.halt(2)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> a.restore(2, piece("a", Map.of(), Map.of(), Map.of()), new byte[0]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("epoch");
      assertThatThrownBy(() -> a.restore(3, piece("z", Map.of(), Map.of(), Map.of()), new byte[0]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("worker z");
      assertThatThrownBy(() -> a.resume(4)).isInstanceOf(IllegalArgumentException.class);
      a.resume(3);
      assertThat(a.epoch()).isEqualTo(3);
    }
  }

  @Test
  void rollingTheBankBackToACutConservesMoneyAndLaterCutsStayConsistent() {
    try (BankCluster bank =
        new BankCluster(
                BankCluster.complete("a", "b", "c"), 10_000, 1_000_000, UnaryOperator.identity())
            .connectDirectly()) {
      bank.kickAll(16);
      await()
          .until(
              () -> bank.accounts.values().stream().mapToLong(BankAccount::received).sum() > 5_000);
      bank.workers.get("b").startSnapshot(1);
      await().atMost(Duration.ofSeconds(10)).until(() -> bank.complete(1));
      assertThat(CutVerifier.verify(bank.cut(1))).isEmpty();
      long recorded =
          bank.cut(1).pieces().values().stream().mapToLong(LocalSnapshot::inFlightMessages).sum();

      bank.workers.values().forEach(w -> w.halt(1));
      for (Map.Entry<String, Worker> e : bank.workers.entrySet()) {
        CompletedLocalSnapshot s = bank.completed.get(1L).get(e.getKey());
        e.getValue().restore(1, s.cut(), s.state().state());
      }
      assertThat(bank.liveBalances() + recordedMoney(bank, 1)).isEqualTo(bank.initialTotal);
      long receivedBefore = bank.accounts.values().stream().mapToLong(BankAccount::received).sum();
      bank.workers.values().forEach(w -> w.resume(1));

      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  bank.accounts.values().stream().mapToLong(BankAccount::received).sum()
                      > receivedBefore + recorded + 5_000);
      bank.workers.get("a").startSnapshot(2);
      await().atMost(Duration.ofSeconds(10)).until(() -> bank.complete(2));
      assertThat(CutVerifier.verify(bank.cut(2))).isEmpty();
      assertThat(bank.moneyIn(2)).isEqualTo(bank.initialTotal);
      assertThat(bank.violations())
          .as("application sequence numbers continue across the rollback")
          .isEmpty();
      bank.workers.values().forEach(w -> assertThat(w.epoch()).isEqualTo(1));
    }
  }

  private static long recordedMoney(BankCluster bank, long snapshotId) {
    return bank.completed.get(snapshotId).values().stream()
        .flatMap(s -> s.cut().recordings().values().stream())
        .flatMap(List::stream)
        .mapToLong(m -> BankAccount.amountOf(m.payload()))
        .sum();
  }
}
