package io.cutpoint.client;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The classic bank of snapshot papers, as a test application: a worker holds a balance and sends
 * random amounts to its peers; every received amount triggers one more transfer until the budget is
 * spent. Messages carry an application sequence number per channel so the receiver can check that
 * nothing is lost, duplicated or reordered. Touched only on the worker's event thread.
 */
final class BankAccount implements StateHandler, MessageHandler {

  private final List<String> peers;
  private final Random random;
  private final Map<String, Long> nextOut = new HashMap<>();
  private final Map<String, Long> lastIn = new HashMap<>();

  /** Problems seen by the receiver (gaps, duplicates, reordering); empty when all is well. */
  final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

  private volatile long balance;
  private volatile long received;
  private long budget;
  private Worker worker;

  BankAccount(long balance, List<String> peers, long seed, long budget) {
    this.balance = balance;
    this.peers = new ArrayList<>(peers);
    this.random = new Random(seed);
    this.budget = budget;
  }

  void attach(Worker worker) {
    this.worker = worker;
  }

  long balance() {
    return balance;
  }

  long received() {
    return received;
  }

  /** Starts {@code n} chains of transfers; call through {@link Worker#execute}. */
  void kick(int n) {
    for (int i = 0; i < n; i++) {
      transfer();
    }
  }

  /** Ends the traffic: no more transfers start. Call through {@link Worker#execute}. */
  void stop() {
    budget = 0;
  }

  private void transfer() {
    if (budget <= 0 || balance <= 0 || peers.isEmpty()) {
      return;
    }
    budget--;
    long amount = 1 + random.nextInt((int) Math.min(balance, 100));
    String to = peers.get(random.nextInt(peers.size()));
    long seq = nextOut.merge(to, 1L, Long::sum);
    balance -= amount;
    worker.send(to, encode(amount, seq));
  }

  @Override
  public void onMessage(String from, long seq, byte[] payload) {
    ByteBuffer b = ByteBuffer.wrap(payload);
    long amount = b.getLong();
    long appSeq = b.getLong();
    long last = lastIn.getOrDefault(from, 0L);
    if (appSeq != last + 1) {
      violations.add("from " + from + ": application seq " + appSeq + " after " + last);
    }
    lastIn.put(from, appSeq);
    balance += amount;
    received++;
    transfer();
  }

  @Override
  public byte[] capture() {
    // Sequence bookkeeping travels with the balance so that a restore continues it.
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
      out.writeLong(balance);
      out.writeLong(budget);
      for (Map<String, Long> m : List.of(nextOut, lastIn)) {
        out.writeInt(m.size());
        for (Map.Entry<String, Long> e : m.entrySet()) {
          out.writeUTF(e.getKey());
          out.writeLong(e.getValue());
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  @Override
  public void restore(byte[] state) {
    try (java.io.DataInputStream in =
        new java.io.DataInputStream(new java.io.ByteArrayInputStream(state))) {
      balance = in.readLong();
      budget = in.readLong();
      for (Map<String, Long> m : List.of(nextOut, lastIn)) {
        m.clear();
        for (int i = in.readInt(); i > 0; i--) {
          m.put(in.readUTF(), in.readLong());
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static long balanceOf(byte[] state) {
    return ByteBuffer.wrap(state).getLong();
  }

  static byte[] encode(long amount, long appSeq) {
    return ByteBuffer.allocate(16).putLong(amount).putLong(appSeq).array();
  }

  static long amountOf(byte[] payload) {
    return ByteBuffer.wrap(payload).getLong();
  }
}
