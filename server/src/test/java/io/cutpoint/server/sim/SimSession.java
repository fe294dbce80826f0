package io.cutpoint.server.sim;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.client.sim.SimNetwork;
import io.grpc.stub.StreamObserver;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * One simulated session stream between a worker process and a coordinator: FIFO both ways with
 * seeded delays. What is in flight when it ends is lost. It ends when either process dies, or when
 * the coordinator closes it (it is the {@link StreamObserver} the coordinator's {@code
 * SessionRegistry} writes to); the worker then notices after a delay and joins again.
 */
final class SimSession implements StreamObserver<CoordinatorMessage> {

  private final WorkerProcess worker;
  private final CoordinatorNode coordinator;
  private final SimNetwork network;
  private final LongSupplier delay;
  private final BiConsumer<String, CoordinatorMessage> sent;
  private long token;
  private boolean up = true;
  private long lastDown;
  private long lastUp;

  /**
   * @param sent told of every message the coordinator writes, as it writes it
   */
  SimSession(
      WorkerProcess worker,
      CoordinatorNode coordinator,
      SimNetwork network,
      LongSupplier delay,
      BiConsumer<String, CoordinatorMessage> sent) {
    this.worker = worker;
    this.sent = sent;
    this.coordinator = coordinator;
    this.network = network;
    this.delay = delay;
  }

  WorkerProcess worker() {
    return worker;
  }

  CoordinatorNode coordinator() {
    return coordinator;
  }

  String workerId() {
    return worker.id();
  }

  long token() {
    return token;
  }

  void token(long t) {
    this.token = t;
  }

  boolean up() {
    return up;
  }

  /** A worker's message: {@code atCoordinator} runs when it arrives, if the stream still stands. */
  void toCoordinator(Runnable atCoordinator) {
    lastUp = Math.max(network.now() + delay.getAsLong(), lastUp);
    network.at(
        lastUp,
        () -> {
          if (up && coordinator.running()) {
            coordinator.arrive(atCoordinator);
          }
        });
  }

  /** The stream breaks: nothing more goes either way (a process died). */
  void cut() {
    up = false;
  }

  @Override
  public void onNext(CoordinatorMessage message) {
    sent.accept(worker.id(), message);
    lastDown = Math.max(network.now() + delay.getAsLong(), lastDown);
    network.at(
        lastDown,
        () -> {
          if (up) {
            worker.handle(this, message);
          }
        });
  }

  /** The coordinator ended the stream (after what it sent before): the worker notices. */
  @Override
  public void onError(Throwable t) {
    ended();
  }

  @Override
  public void onCompleted() {
    ended();
  }

  private void ended() {
    lastDown = Math.max(network.now() + delay.getAsLong(), lastDown);
    network.at(
        lastDown,
        () -> {
          if (up) {
            up = false;
            worker.sessionEnded(this);
          }
        });
  }
}
