package io.cutpoint.playground.sim;

/** The bank's amounts as bytes: a balance is a process's state, a transfer a message's payload. */
public final class Money {

  private Money() {}

  public static byte[] encode(long amount) {
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) amount;
      amount >>= 8;
    }
    return b;
  }

  public static long decode(byte[] b) {
    long v = 0;
    for (byte x : b) {
      v = (v << 8) | (x & 0xFF);
    }
    return v;
  }
}
