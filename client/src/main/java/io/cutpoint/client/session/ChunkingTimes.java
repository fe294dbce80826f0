package io.cutpoint.client.session;

/**
 * When a state that goes up as content chunks was cut and its missing chunks became known, on
 * {@link System#nanoTime()}: the part of a worker's timeline between its local snapshot and its
 * upload.
 *
 * @param beganNanos a chunking thread began cutting and hashing the state
 * @param chunkedNanos the state was cut and hashed
 * @param foundNanos the coordinator's answer to {@code FindChunks} arrived
 */
record ChunkingTimes(long beganNanos, long chunkedNanos, long foundNanos) {

  /** A state cut on the loop and sent whole, or one not content-addressed. */
  static final ChunkingTimes NONE = new ChunkingTimes(0, 0, 0);

  boolean known() {
    return foundNanos != 0;
  }
}
