package io.cutpoint.client.sim;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.RecordedMessage;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;

/**
 * The classic bank-transfer application: each worker holds a balance and moves money to its peers
 * in messages of 8 bytes (the amount). The system neither creates nor destroys money, so every
 * consistent cut satisfies: balances + money in flight = the initial total. Not thread-safe.
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

  /** Takes {@code amount} out and returns the message that carries it. */
  public byte[] withdraw(long amount) {
    if (amount < 0 || amount > balance) {
      throw new IllegalArgumentException("cannot withdraw " + amount + " from " + balance);
    }
    balance -= amount;
    return encode(amount);
  }

  /** Credits the amount a transfer message carries. */
  public void deposit(byte[] transfer) {
    balance += decode(transfer);
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
      for (List<RecordedMessage> channel : piece.cut().recordings().values()) {
        for (RecordedMessage m : channel) {
          total += decode(m.payload());
        }
      }
    }
    return total;
  }
}
