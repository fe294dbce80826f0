package io.cutpoint.ops.crash;

import io.cutpoint.client.MessageHandler;
import io.cutpoint.client.SendTimeoutException;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.Worker;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

/**
 * The bank account each crash-test worker process runs: state = the balance (8 bytes), message = an
 * amount (8 bytes). A transfer takes the amount off the balance only when the worker took the
 * message (a halted worker drops it and returns 0). Runs on the worker's event thread only.
 */
final class CrashAccount implements StateHandler, MessageHandler {

  private final List<String> peers;
  private final Random random;
  private Worker worker;
  private volatile long balance;

  CrashAccount(long balance, List<String> peers, long seed) {
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

  void transfer() {
    if (balance <= 0 || peers.isEmpty()) {
      return;
    }
    long amount = 1 + random.nextInt((int) Math.min(balance, 100));
    String to = peers.get(random.nextInt(peers.size()));
    try {
      if (worker.send(to, encode(amount)) != 0) {
        balance -= amount;
      }
    } catch (SendTimeoutException e) {
      // no room came: the message was not sent, the money stays
    }
  }

  @Override
  public void onMessage(String from, long seq, byte[] payload) {
    balance += amountOf(payload);
  }

  @Override
  public byte[] capture() {
    return ByteBuffer.allocate(8).putLong(balance).array();
  }

  @Override
  public void restore(byte[] state) {
    balance = balanceOf(state);
  }

  static byte[] encode(long amount) {
    return ByteBuffer.allocate(8).putLong(amount).array();
  }

  static long amountOf(byte[] payload) {
    return ByteBuffer.wrap(payload).getLong();
  }

  static long balanceOf(byte[] state) {
    return ByteBuffer.wrap(state).getLong();
  }
}
