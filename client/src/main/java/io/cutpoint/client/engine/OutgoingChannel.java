package io.cutpoint.client.engine;

/** The sending end of one channel {@code self -> peer}: how many data messages went out on it. */
final class OutgoingChannel {

  final String peer;
  long sent;

  OutgoingChannel(String peer) {
    this.peer = peer;
  }
}
