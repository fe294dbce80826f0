package io.cutpoint.client.sim;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.InTransitMessage;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;

/**
 * The classic bank-transfer application: each worker holds a balance and moves money to its peers
 * in messages of 16 bytes: the amount, then the epoch the sender was in (0 where there are no
 * epochs), so that a receiver can tell a message of an old epoch. The system neither creates nor
 * destroys money, so every consistent cut satisfies: balances + money in flight = the initial
 * total. Not thread-safe.
 */
public final class BankAccount {

  private long balance;

  public BankAccount(long initialBalance) {
    if (initialBalance < 0) {
      throw new IllegalArgumentException("a balance cannot be negative: " + initialBalance);
    }
    this.balance = initialBalance;
  }

  public long balance() {
    return balance;
  }

  /** Takes {@code amount} out and returns the message that carries it (epoch 0). */
  public byte[] withdraw(long amount) {
    return withdraw(amount, 0);
  }

  /** Takes {@code amount} out and returns the message that carries it, sent in {@code epoch}. */
  public byte[] withdraw(long amount, long epoch) {
    if (amount < 0 || amount > balance) {
      throw new IllegalArgumentException("cannot withdraw " + amount + " from " + balance);
    }
    balance -= amount;
    return ByteBuffer.allocate(2 * Long.BYTES).putLong(amount).putLong(epoch).array();
  }

  /** Credits the amount a transfer message carries. */
  public void deposit(byte[] transfer) {
    balance += amountOf(transfer);
  }

  /** The amount a transfer message carries. */
  public static long amountOf(byte[] transfer) {
    return ByteBuffer.wrap(transfer, 0, Long.BYTES).getLong();
  }

  /** The epoch the sender of a transfer message was in. */
  public static long epochOf(byte[] transfer) {
    return ByteBuffer.wrap(transfer, Long.BYTES, Long.BYTES).getLong();
  }

  /** The state to capture for a snapshot: the balance, 8 bytes big-endian. */
  public CapturedState capture() {
    return CapturedState.of(encode(balance));
  }

  /** Sets the balance from a captured state (restore). */
  public void restore(byte[] state) {
    balance = decode(state);
  }

  public static byte[] encode(long amount) {
    return ByteBuffer.allocate(Long.BYTES).putLong(amount).array();
  }

  public static long decode(byte[] bytes) {
    if (bytes.length != Long.BYTES) {
      throw new IllegalArgumentException("expected 8 bytes, got " + bytes.length);
    }
    return ByteBuffer.wrap(bytes).getLong();
  }

  /** Money a cut accounts for: captured balances plus the amounts recorded in flight. */
  public static long totalOf(Collection<CompletedLocalSnapshot> pieces) {
    long total = 0;
    for (CompletedLocalSnapshot piece : pieces) {
      total += decode(piece.state().state());
      for (List<InTransitMessage> channel : piece.cut().recordings().values()) {
        for (InTransitMessage m : channel) {
          total += amountOf(m.payload());
        }
      }
    }
    return total;
  }
}
