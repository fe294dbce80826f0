package io.cutpoint.ops.demo;

import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionOptions;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One bank worker: a {@link BankAccount} in a {@link Worker}, joined to a coordinator, or following
 * the leader of several ({@link #follow}).
 */
public final class BankNode implements AutoCloseable {

  private final BankAccount account;
  private final Worker worker;
  private final ManagedChannel coordinatorChannel; // null: the worker's own session
  private final CoordinatorSession session;
  private final AtomicLong sendErrors = new AtomicLong();

  private BankNode(
      BankAccount account, Worker worker, ManagedChannel channel, CoordinatorSession session) {
    this.account = account;
    this.worker = worker;
    this.coordinatorChannel = channel;
    this.session = session;
  }

  /**
   * Starts the worker's channel server on a free loopback port and joins {@code coordinator} in
   * plaintext.
   */
  public static BankNode start(
      String id,
      SortedSet<String> outgoing,
      SortedSet<String> incoming,
      long balance,
      int maxAmount,
      long seed,
      String coordinator,
      CaptureLog captures) {
    return start(
        id,
        outgoing,
        incoming,
        balance,
        maxAmount,
        seed,
        coordinator,
        io.grpc.InsecureChannelCredentials.create(),
        captures);
  }

  /** As above, reaching the coordinator with {@code credentials} (TLS, a worker token). */
  public static BankNode start(
      String id,
      SortedSet<String> outgoing,
      SortedSet<String> incoming,
      long balance,
      int maxAmount,
      long seed,
      String coordinator,
      io.grpc.ChannelCredentials credentials,
      CaptureLog captures) {
    BankAccount account = new BankAccount(id, new ArrayList<>(outgoing), balance, maxAmount, seed);
    account.onCapture((snapshotId, state) -> captures.record(id, snapshotId, state));
    Worker worker =
        Worker.builder(id)
            .listenOn("127.0.0.1", 0)
            .outgoing(outgoing)
            .incoming(incoming)
            .stateHandler(account)
            .messageHandler(account)
            .build()
            .start();
    ManagedChannel channel = worker.coordinatorChannel(coordinator, credentials).build();
    CoordinatorSession session;
    try {
      session = new CoordinatorSession(channel, worker, SESSION).start();
    } catch (RuntimeException e) {
      channel.shutdownNow();
      worker.close();
      throw e;
    }
    return new BankNode(account, worker, channel, session);
  }

  /**
   * Starts the worker on a free loopback port with a session of its own that follows whichever of
   * {@code coordinators} leads ({@link Worker.Builder#coordinators}).
   */
  public static BankNode follow(
      String id,
      SortedSet<String> outgoing,
      SortedSet<String> incoming,
      long balance,
      int maxAmount,
      long seed,
      java.util.List<String> coordinators,
      io.grpc.ChannelCredentials credentials,
      CaptureLog captures) {
    BankAccount account = new BankAccount(id, new ArrayList<>(outgoing), balance, maxAmount, seed);
    account.onCapture((snapshotId, state) -> captures.record(id, snapshotId, state));
    Worker worker =
        Worker.builder(id)
            .listenOn("127.0.0.1", 0)
            .outgoing(outgoing)
            .incoming(incoming)
            .stateHandler(account)
            .messageHandler(account)
            .coordinators(coordinators, credentials, SESSION)
            .build()
            .start();
    return new BankNode(account, worker, null, worker.session().orElseThrow());
  }

  private static final SessionOptions SESSION =
      SessionOptions.defaults().withReconnect(Duration.ofMillis(50), Duration.ofSeconds(1));

  /** Coordinator messages this worker refused because a newer leader term was seen before. */
  public long refusedOldTerm() {
    return session.refusedStaleTermMessages();
  }

  public String id() {
    return account.id();
  }

  public BankAccount account() {
    return account;
  }

  public Worker worker() {
    return worker;
  }

  /** Completes when the coordinator welcomed this worker. */
  public CompletableFuture<Void> joined() {
    return session.joined();
  }

  /** Queues one random transfer on the worker's event thread. */
  public void transferSoon() {
    try {
      worker.execute(
          () -> {
            try {
              account.transfer(worker::send);
            } catch (RuntimeException e) {
              sendErrors.incrementAndGet();
            }
          });
    } catch (RuntimeException closed) {
      sendErrors.incrementAndGet();
    }
  }

  /** The balance read on the event thread (exact between two handler calls). */
  public CompletableFuture<Long> balanceOnEventThread() {
    CompletableFuture<Long> f = new CompletableFuture<>();
    worker.execute(() -> f.complete(account.balance()));
    return f;
  }

  public long sendErrors() {
    return sendErrors.get();
  }

  /**
   * Dies without saying goodbye: the coordinator connection is cut (its session breaks, as when a
   * process is killed), then the worker's channels and server are torn down. A worker with a
   * session of its own ({@link #follow}) leaves instead, as its close does.
   */
  public void crash() {
    if (coordinatorChannel == null) {
      worker.close();
      return;
    }
    coordinatorChannel.shutdownNow();
    awaitChannel();
    worker.close();
    session.close();
  }

  /** Leaves the coordinator and stops the worker. */
  @Override
  public void close() {
    session.close();
    if (coordinatorChannel != null) {
      coordinatorChannel.shutdownNow();
      awaitChannel();
    }
    worker.close();
  }

  private void awaitChannel() {
    try {
      coordinatorChannel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
