package io.cutpoint.client.sim;

import io.cutpoint.client.MessageHandler;
import io.cutpoint.client.SimulatedWorker;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.sim.SimResult.ProblemKind;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;

/**
 * The application of one worker incarnation in {@code io.cutpoint.server.sim.Simulation}: a {@link
 * BankAccount} behind the worker's handlers, which moves money at random and sometimes forwards
 * part of a deposit from its delivery handler. It also checks every delivery: a message sent in
 * another epoch than the worker's is a problem unless it is the next recorded message a restore
 * queued, replayed during the resume; and each channel's sequence numbers go up by one, from what
 * the last restore set.
 */
public final class BankApp implements StateHandler, MessageHandler {

  private final String id;
  private final BankAccount account;
  private final List<String> outgoing;
  private final SplittableRandom random;
  private final int forwardPercent;
  private final BiConsumer<ProblemKind, String> problems;
  private final Map<String, Long> lastSeq = new HashMap<>();
  private final Map<String, ArrayDeque<InTransitMessage>> replay = new HashMap<>();
  private SimulatedWorker worker;
  private long replayed;
  private int waiting;

  public BankApp(
      String id,
      long balance,
      List<String> outgoing,
      SplittableRandom random,
      int forwardPercent,
      BiConsumer<ProblemKind, String> problems) {
    this.id = id;
    this.account = new BankAccount(balance);
    this.outgoing = List.copyOf(outgoing);
    this.random = random;
    this.forwardPercent = forwardPercent;
    this.problems = problems;
  }

  public void attach(SimulatedWorker w) {
    this.worker = w;
  }

  public long balance() {
    return account.balance();
  }

  public long replayed() {
    return replayed;
  }

  /** The last sequence number delivered from {@code from}. */
  public long lastSeq(String from) {
    return lastSeq.getOrDefault(from, 0L);
  }

  /**
   * Moves a random part of the balance to a random peer. While the worker is halted the transfer
   * waits, as an application send does, and goes out when the worker resumes.
   */
  public void transferAtRandom() {
    if (outgoing.isEmpty() || !worker.alive()) {
      return;
    }
    if (worker.halted()) {
      waiting++;
      return;
    }
    String to = outgoing.get(random.nextInt(outgoing.size()));
    long amount = random.nextLong(Math.min(account.balance(), 200) + 1);
    byte[] payload = account.withdraw(amount, worker.epoch());
    if (worker.send(to, payload) == 0) {
      account.deposit(payload); // dropped: the money stays here
    }
  }

  /** Money in the recorded messages that wait to be replayed. */
  public long replayPendingAmount() {
    long sum = 0;
    for (ArrayDeque<InTransitMessage> q : replay.values()) {
      for (InTransitMessage m : q) {
        sum += BankAccount.amountOf(m.payload());
      }
    }
    return sum;
  }

  /** True while recorded messages of {@code from} wait to be replayed. */
  public boolean replayPending(String from) {
    ArrayDeque<InTransitMessage> q = replay.get(from);
    return q != null && !q.isEmpty();
  }

  /** The worker resumed: the transfers that waited go out now. */
  public void resumed() {
    int n = waiting;
    waiting = 0;
    for (int i = 0; i < n; i++) {
      transferAtRandom();
    }
  }

  /** The worker restored {@code piece}: its channels continue from there, replays first. */
  public void restored(LocalSnapshot piece) {
    lastSeq.clear();
    lastSeq.putAll(piece.received());
    replay.clear();
    piece.recordings().forEach((from, messages) -> replay.put(from, new ArrayDeque<>(messages)));
  }

  @Override
  public byte[] capture() {
    return BankAccount.encode(account.balance());
  }

  @Override
  public void restore(byte[] state) {
    account.restore(state);
  }

  @Override
  public void onMessage(String from, long seq, byte[] payload) {
    long epoch = worker.epoch();
    long sentIn = BankAccount.epochOf(payload);
    boolean isReplay = false;
    ArrayDeque<InTransitMessage> queued = replay.get(from);
    if (worker.replaying()
        && queued != null
        && !queued.isEmpty()
        && queued.peek().seq() == seq
        && Arrays.equals(queued.peek().payload(), payload)) {
      queued.poll();
      isReplay = true;
      replayed++;
    }
    if (!isReplay && sentIn != epoch) {
      problems.accept(
          ProblemKind.OLD_EPOCH,
          id
              + " in epoch "
              + epoch
              + " was handed message "
              + seq
              + " from "
              + from
              + ", sent in epoch "
              + sentIn
              + ", and not as a replay");
    }
    long expected = lastSeq(from) + 1;
    if (seq != expected) {
      problems.accept(
          ProblemKind.DELIVERY,
          id
              + " in epoch "
              + epoch
              + " was handed message "
              + seq
              + " from "
              + from
              + " where "
              + expected
              + " was next");
    }
    lastSeq.put(from, seq);
    account.deposit(payload);
    if (random.nextInt(100) < forwardPercent) {
      transferAtRandom(); // an application that reacts to a message by sending
    }
  }
}
