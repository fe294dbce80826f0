package io.cutpoint.ops.demo;

import io.cutpoint.client.MessageHandler;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.engine.CapturedState;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.ToLongBiFunction;

/**
 * The classic bank-transfer application of the Chandy-Lamport paper: each worker holds a balance,
 * moves money to its peers in messages, and credits what it receives. Money is never created nor
 * destroyed, so every consistent cut satisfies: balances + amounts in transit = the initial total.
 *
 * <p>State: the balance as 8 bytes (big-endian). Message: the amount as 8 bytes. All changes run on
 * the worker's event thread ({@link #transfer} from {@code Worker.execute}, {@link #onMessage} from
 * the SDK), which makes a state capture atomic with respect to transfers.
 */
public final class BankAccount implements StateHandler, MessageHandler {

  private final String id;
  private final List<String> peers;
  private final int maxAmount;
  private final Random random;
  private volatile long balance;
  private volatile long transfersOut;
  private volatile long transfersIn;
  private volatile long restores;
  private volatile BiConsumer<Long, byte[]> captureListener = (id, state) -> {};

  /**
   * @param id the worker id
   * @param peers the workers this account sends to (its outgoing channels)
   * @param balance the opening balance
   * @param maxAmount the largest single transfer
   * @param seed seeds the choice of peers and amounts
   */
  public BankAccount(String id, List<String> peers, long balance, int maxAmount, long seed) {
    if (maxAmount < 1) {
      throw new IllegalArgumentException("maxAmount must be at least 1");
    }
    this.id = id;
    this.peers = List.copyOf(peers);
    this.balance = balance;
    this.maxAmount = maxAmount;
    this.random = new Random(seed);
  }

  /** The state bytes of a balance. */
  public static byte[] encodeBalance(long balance) {
    return ByteBuffer.allocate(8).putLong(balance).array();
  }

  /** The balance in state bytes. */
  public static long decodeBalance(byte[] state) {
    if (state.length != 8) {
      throw new IllegalArgumentException("a bank state is 8 bytes, got " + state.length);
    }
    return ByteBuffer.wrap(state).getLong();
  }

  /** The payload of a transfer. */
  public static byte[] encodeAmount(long amount) {
    return ByteBuffer.allocate(8).putLong(amount).array();
  }

  /** The amount in a transfer's payload. */
  public static long decodeAmount(byte[] payload) {
    if (payload.length != 8) {
      throw new IllegalArgumentException("a transfer is 8 bytes, got " + payload.length);
    }
    return ByteBuffer.wrap(payload).getLong();
  }

  /** Called with (snapshot id, state bytes) at every capture; on the event thread. */
  public void onCapture(BiConsumer<Long, byte[]> listener) {
    this.captureListener = listener;
  }

  /**
   * Moves a random amount to a random peer, if the balance allows. Must run on the worker's event
   * thread. {@code send} returns the message's sequence number, or 0 when the worker dropped it
   * (halted for a rollback): the balance is debited only for a message that was sent.
   *
   * @return the amount sent, 0 if none
   */
  public long transfer(ToLongBiFunction<String, byte[]> send) {
    if (peers.isEmpty() || balance <= 0) {
      return 0;
    }
    String to = peers.get(random.nextInt(peers.size()));
    long amount = 1 + random.nextInt((int) Math.min(maxAmount, balance));
    if (send.applyAsLong(to, encodeAmount(amount)) == 0) {
      return 0;
    }
    balance -= amount;
    transfersOut++;
    return amount;
  }

  @Override
  public void onMessage(String from, long seq, byte[] payload) {
    balance += decodeAmount(payload);
    transfersIn++;
  }

  @Override
  public byte[] capture() {
    return encodeBalance(balance);
  }

  @Override
  public CapturedState captureState(long snapshotId) {
    byte[] state = capture();
    captureListener.accept(snapshotId, state);
    return new CapturedState(state, CapturedState.Activity.ACTIVE, List.of());
  }

  @Override
  public void restore(byte[] state) {
    balance = decodeBalance(state);
    restores++;
  }

  public String id() {
    return id;
  }

  /** The balance now (read from any thread; exact only on the event thread). */
  public long balance() {
    return balance;
  }

  public long transfersOut() {
    return transfersOut;
  }

  public long transfersIn() {
    return transfersIn;
  }

  /** How many times a rollback restored this account. */
  public long restores() {
    return restores;
  }
}
