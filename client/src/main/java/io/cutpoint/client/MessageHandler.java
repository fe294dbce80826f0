package io.cutpoint.client;

/**
 * Receives the application messages of a worker's incoming channels. Called on the worker's event
 * thread, one message at a time, in channel order; it may call {@link Worker#send} directly.
 */
@FunctionalInterface
public interface MessageHandler {

  /**
   * A message arrived.
   *
   * @param from the sending peer
   * @param seq the message's data sequence number on the channel {@code from -> this worker}
   * @param payload the application's bytes; the handler may keep the array but must not change it
   *     (a snapshot recording this channel holds the same array)
   */
  void onMessage(String from, long seq, byte[] payload);
}
