package io.cutpoint.ops.demo.deadlock;

import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Philosopher} in a {@link Worker} joined to a coordinator: fork messages travel on the
 * worker's channels to its two neighbours, its timers post back to its event thread, and its state
 * capture is the philosopher's own declaration.
 */
public final class PhilosopherNode implements AutoCloseable {

  private final Philosopher philosopher;
  private final Worker worker;
  private final ManagedChannel coordinatorChannel;
  private final CoordinatorSession session;

  private PhilosopherNode(
      Philosopher philosopher, Worker worker, ManagedChannel channel, CoordinatorSession session) {
    this.philosopher = philosopher;
    this.worker = worker;
    this.coordinatorChannel = channel;
    this.session = session;
  }

  /**
   * Starts the worker of philosopher {@code index} of {@code n} on a free loopback port and joins
   * {@code coordinator} ({@code host:port}); timers run on {@code timers}; {@code markersAhead} as
   * {@link Worker.Builder#markersAhead}.
   */
  public static PhilosopherNode start(
      Philosopher philosopher,
      int index,
      int n,
      String coordinator,
      ScheduledExecutorService timers,
      boolean markersAhead) {
    List<String> neighbours = Philosopher.neighbours(index, n);
    Worker worker =
        Worker.builder(philosopher.id())
            .listenOn("127.0.0.1", 0)
            .outgoing(neighbours)
            .incoming(neighbours)
            .stateHandler(philosopher)
            .messageHandler(philosopher)
            .markersAhead(markersAhead)
            .build();
    philosopher.wire(
        worker::send,
        (millis, action) -> {
          try {
            timers.schedule(
                () -> {
                  try {
                    worker.execute(action);
                  } catch (IllegalStateException closed) {
                    // The table is being cleared.
                  }
                },
                millis,
                TimeUnit.MILLISECONDS);
          } catch (RejectedExecutionException closed) {
            // The table is being cleared.
          }
        });
    worker.start();
    ManagedChannel channel = ManagedChannelBuilder.forTarget(coordinator).usePlaintext().build();
    try {
      CoordinatorSession session =
          new CoordinatorSession(
                  channel,
                  worker,
                  SessionOptions.defaults()
                      .withReconnect(Duration.ofMillis(50), Duration.ofSeconds(1)))
              .start();
      return new PhilosopherNode(philosopher, worker, channel, session);
    } catch (RuntimeException e) {
      channel.shutdownNow();
      worker.close();
      throw e;
    }
  }

  public String id() {
    return philosopher.id();
  }

  public Worker worker() {
    return worker;
  }

  public CoordinatorSession session() {
    return session;
  }

  /** Completes when the coordinator welcomed this worker. */
  public CompletableFuture<Void> joined() {
    return session.joined();
  }

  /** Starts the meals, on the event thread. */
  public void begin() {
    worker.execute(philosopher::begin);
  }

  /** The philosopher's status, read on its event thread (exact between two handler calls). */
  public CompletableFuture<Philosopher.Status> status() {
    CompletableFuture<Philosopher.Status> f = new CompletableFuture<>();
    try {
      worker.execute(() -> f.complete(philosopher.status()));
    } catch (RuntimeException e) {
      f.completeExceptionally(e);
    }
    return f;
  }

  /** Meals for which this philosopher drew the fatal order (racy; for display). */
  public long fatalMeals() {
    return philosopher.fatalMeals();
  }

  /** Leaves the coordinator and stops the worker. */
  @Override
  public void close() {
    session.close();
    worker.close();
    coordinatorChannel.shutdownNow();
    try {
      coordinatorChannel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
