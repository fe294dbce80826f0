package io.cutpoint.server.e2e;

import io.cutpoint.client.MessageHandler;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.Worker;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

/**
 * A bank account as a test application: its state is its balance, a transfer sends an amount to
 * a random peer. Money is conserved, so every consistent cut holds exactly the money the cluster
 * started with (balances plus amounts in transit). Runs on the worker's event thread.
 */
final class Ledger implements StateHandler, MessageHandler {

  private final List<String> peers;
  private final Random random;
  private volatile Worker worker;
  private volatile long balance;

  Ledger(long balance, List<String> peers, long seed) {
    this.balance = balance;
    this.peers = List.copyOf(peers);
    this.random = new Random(seed);
  }

  void attach(Worker worker) {
    this.worker = worker;
  }

  long balance() {
    return balance;
  }

  /** Sends a random amount to a random peer; call on the event thread. */
  void transfer() {
    if (balance <= 0 || peers.isEmpty()) {
      return;
    }
    long amount = 1 + random.nextInt((int) Math.min(balance, 20));
    String to = peers.get(random.nextInt(peers.size()));
    if (worker.send(to, encode(amount)) != 0) {
      balance -= amount;
    }
  }

  @Override
  public void onMessage(String from, long seq, byte[] payload) {
    balance += decode(payload);
  }

  @Override
  public byte[] capture() {
    return encode(balance);
  }

  @Override
  public void restore(byte[] state) {
    balance = decode(state);
  }

  static byte[] encode(long amount) {
    return ByteBuffer.allocate(8).putLong(amount).array();
  }

  static long decode(byte[] bytes) {
    return ByteBuffer.wrap(bytes).getLong();
  }
}
