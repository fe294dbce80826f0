package io.cutpoint.server.testing;

import io.cutpoint.client.MessageHandler;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.Worker;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A bank account as a test application: its state is its balance; a transfer sends an amount to a
 * random peer and takes it off the balance only when the worker accepted the message (a halted
 * worker drops it). Every delivered message is logged per channel with the epoch it arrived in, so
 * a test can check the replay order after a rollback. State changes only on the event thread. Money
 * is conserved, so every consistent cut holds exactly the money the cluster started with (balances
 * plus amounts in transit).
 */
public final class Teller implements StateHandler, MessageHandler {

  /** One delivered message. */
  public record Delivery(long epoch, long seq, long amount) {}

  private final List<String> peers;
  private final Random random;
  private final int maxAmount;
  private final Map<String, List<Delivery>> deliveries = new ConcurrentHashMap<>();
  private volatile Worker worker;
  private volatile long balance;

  /** A teller that sends amounts of 1 to 50. */
  public Teller(long balance, List<String> peers, long seed) {
    this(balance, peers, seed, 50);
  }

  /** A teller that sends amounts of 1 to {@code maxAmount} (less when the balance is lower). */
  public Teller(long balance, List<String> peers, long seed, int maxAmount) {
    if (maxAmount < 1) {
      throw new IllegalArgumentException("maxAmount must be >= 1, got " + maxAmount);
    }
    this.balance = balance;
    this.peers = List.copyOf(peers);
    this.random = new Random(seed);
    this.maxAmount = maxAmount;
  }

  public void attach(Worker worker) {
    this.worker = worker;
  }

  public long balance() {
    return balance;
  }

  /** Sends one random amount to one random peer; run it on the event thread. */
  public void transfer() {
    if (balance <= 0 || peers.isEmpty()) {
      return;
    }
    long amount = 1 + random.nextInt((int) Math.min(balance, maxAmount));
    String to = peers.get(random.nextInt(peers.size()));
    if (worker.send(to, ByteBuffer.allocate(8).putLong(amount).array()) != 0) {
      balance -= amount;
    }
  }

  @Override
  public void onMessage(String from, long seq, byte[] payload) {
    long amount = ByteBuffer.wrap(payload).getLong();
    balance += amount;
    deliveries
        .computeIfAbsent(from, k -> java.util.Collections.synchronizedList(new ArrayList<>()))
        .add(new Delivery(worker.epoch(), seq, amount));
  }

  /** Messages delivered from {@code peer}, in delivery order. */
  public List<Delivery> deliveredFrom(String peer) {
    List<Delivery> d = deliveries.getOrDefault(peer, List.of());
    synchronized (d) {
      return List.copyOf(d);
    }
  }

  @Override
  public byte[] capture() {
    return ByteBuffer.allocate(8).putLong(balance).array();
  }

  @Override
  public void restore(byte[] state) {
    balance = ByteBuffer.wrap(state).getLong();
  }

  public static long balanceOf(byte[] state) {
    return ByteBuffer.wrap(state).getLong();
  }

  public static long amountOf(byte[] payload) {
    return ByteBuffer.wrap(payload).getLong();
  }
}
