package io.cutpoint.ops.bench;

/**
 * The application of a benchmark worker: counts the messages it receives and holds an opaque state
 * of a chosen size, captured without copying and replaced on restore.
 */
final class BenchApp extends MessageCounter {

  private volatile byte[] state;

  BenchApp(int stateBytes) {
    this.state = filled(stateBytes);
  }

  /** An application holding {@code state}, which it never writes (nor must the caller). */
  BenchApp(byte[] state) {
    this.state = state;
  }

  static byte[] filled(int bytes) {
    byte[] b = new byte[bytes];
    for (int i = 0; i < bytes; i += 4096) {
      b[i] = (byte) (i >>> 12); // touch every page so the state is really resident
    }
    return b;
  }

  /** Sets the state size for the next captures (call between snapshots). */
  void stateBytes(int bytes) {
    if (state.length != bytes) {
      state = filled(bytes);
    }
  }

  int stateBytes() {
    return state.length;
  }

  /** The array the next capture returns (read it only; a capture may hand it to the SDK). */
  byte[] state() {
    return state;
  }

  /**
   * Makes {@code next} the state of the next captures. Call it on the worker's event thread ({@code
   * Worker#execute}), between snapshots; the previous array is left as it was, as the SDK may still
   * be uploading it, and {@code next} must not be written after this either.
   */
  void replaceState(byte[] next) {
    state = next;
  }

  @Override
  public byte[] capture() {
    return state;
  }

  @Override
  public void restore(byte[] restored) {
    state = restored;
  }
}
