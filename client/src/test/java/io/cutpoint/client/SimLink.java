package io.cutpoint.client;

import java.util.ArrayDeque;

/**
 * One simulated stream of channel {@code from -> to}, between two worker incarnations: frames
 * travel one way and acks the other, each way FIFO with seeded random delays, as one gRPC {@code
 * Channel.Open} call does. Once {@link #ended} nothing more travels on it: what is in flight is
 * lost. The receiving side holds frames that arrived until its core asked for them ({@link
 * WorkerEffect.Request}), as gRPC's manual inbound flow control does.
 */
final class SimLink implements InboundLink {

  final String from;
  final String to;
  final SimulatedWorker sender;
  final SimulatedWorker receiver;

  /** The sender's count of streams it opened on this channel, this one included. */
  final int number;

  /** Frames arrived at the receiver and not asked for yet. */
  final ArrayDeque<InboundFrame> inbox = new ArrayDeque<>();

  int credits;
  boolean ended;
  private long lastForward;
  private long lastBack;

  SimLink(SimulatedWorker sender, SimulatedWorker receiver, int number) {
    this.from = sender.id();
    this.to = receiver.id();
    this.sender = sender;
    this.receiver = receiver;
    this.number = number;
  }

  /** Sends {@code frame} (null: the header that opens the stream) to the receiver. */
  void forward(InboundFrame frame) {
    SimulatedWorker.Network net = sender.network();
    lastForward = Math.max(net.now() + net.delay(), lastForward);
    net.at(
        lastForward,
        () -> {
          if (!ended) {
            receiver.arrive(this, frame);
          }
        });
  }

  /** Sends an ack back to the sender. */
  void back(long epoch, long position) {
    SimulatedWorker.Network net = sender.network();
    lastBack = Math.max(net.now() + net.delay(), lastBack);
    net.at(
        lastBack,
        () -> {
          if (!ended) {
            sender.acked(this, epoch, position);
          }
        });
  }

  @Override
  public String toString() {
    return "stream " + from + "->" + to + "#" + number;
  }
}
