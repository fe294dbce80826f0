package io.cutpoint.examples;

import io.cutpoint.client.MessageHandler;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionListener;
import io.cutpoint.client.session.SessionOptions;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A worker application on the Cutpoint SDK, as a plain {@code main}: it joins a coordinator ({@code
 * cutpoint server}), sends a tick to its peer every 100 ms, and counts the ticks it sent and
 * received. The two counters are its state: every snapshot captures them and a rollback restores
 * them. Run two of them against one coordinator (worker-sdk.md, section 1):
 *
 * <pre>
 * mvn -q -B -pl examples compile exec:java -Dexec.mainClass=io.cutpoint.examples.TickerWorker -Dexec.args='localhost:7070 left right'
 * mvn -q -B -pl examples compile exec:java -Dexec.mainClass=io.cutpoint.examples.TickerWorker -Dexec.args='localhost:7070 right left'
 * </pre>
 *
 * <p>The coordinator hands each worker its peer's channel address when the peer joins; ticks sent
 * before then wait in the channel's buffer.
 */
public final class TickerWorker implements StateHandler, MessageHandler, AutoCloseable {

  private final String peer;
  private final Worker worker;
  private final CoordinatorSession session;
  private final ScheduledExecutorService ticker;
  private final ScheduledFuture<?> ticks;
  // The state: changed only on the worker's event thread (in onMessage, restore and execute).
  private long sent;
  private long received;

  private TickerWorker(
      String coordinator, String id, String peer, long periodMillis, SessionListener listener) {
    this.peer = peer;
    this.worker =
        Worker.builder(id)
            .listenOn("127.0.0.1", 0)
            .outgoing(peer)
            .incoming(peer)
            .stateHandler(this)
            .messageHandler(this)
            .build()
            .start();
    CoordinatorSession joining;
    try {
      joining = CoordinatorSession.connect(coordinator, worker, SessionOptions.defaults());
      joining.addListener(listener);
    } catch (RuntimeException e) {
      worker.close();
      throw e;
    }
    this.session = joining;
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "ticker-" + id);
              t.setDaemon(true);
              return t;
            });
    this.ticks =
        ticker.scheduleAtFixedRate(
            this::tickSoon, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  /**
   * Starts the worker {@code id}, joins {@code coordinator} ({@code host:port}) and sends a tick to
   * {@code peer} every {@code periodMillis}; {@code listener} hears about the session.
   */
  public static TickerWorker start(
      String coordinator, String id, String peer, long periodMillis, SessionListener listener) {
    return new TickerWorker(coordinator, id, peer, periodMillis, listener);
  }

  /** Completes when the coordinator has welcomed this worker. */
  public CompletableFuture<Void> joined() {
    return session.joined();
  }

  /** The two counters, read on the event thread (so between two messages). */
  public CompletableFuture<long[]> counters() {
    CompletableFuture<long[]> f = new CompletableFuture<>();
    worker.execute(() -> f.complete(new long[] {sent, received}));
    return f;
  }

  private void tickSoon() {
    // "count it, send it" on the event thread: atomic with respect to snapshots
    worker.execute(
        () -> {
          sent++;
          worker.send(peer, ByteBuffer.allocate(8).putLong(sent).array());
        });
  }

  @Override
  public void onMessage(String from, long seq, byte[] payload) {
    received++;
  }

  @Override
  public byte[] capture() {
    return ByteBuffer.allocate(16).putLong(sent).putLong(received).array();
  }

  @Override
  public void restore(byte[] state) {
    ByteBuffer b = ByteBuffer.wrap(state);
    sent = b.getLong();
    received = b.getLong();
  }

  /** Stops ticking, leaves the coordinator and stops the worker. */
  @Override
  public void close() {
    ticks.cancel(false);
    ticker.shutdownNow();
    session.close();
    worker.close();
  }

  /** {@code TickerWorker COORDINATOR ID PEER}: runs until Ctrl-C (or SIGTERM), then leaves. */
  public static void main(String[] args) throws InterruptedException {
    if (args.length != 3) {
      System.err.println("usage: TickerWorker COORDINATOR(host:port) ID PEER");
      System.exit(2);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    TickerWorker w =
        start(
            args[0],
            args[1],
            args[2],
            100,
            new SessionListener() {
              @Override
              public void uploaded(long snapshotId, long stateBytes) {
                System.out.println(
                    args[1] + ": snapshot " + snapshotId + " uploaded (" + stateBytes + " bytes)");
              }
            });
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  w.close();
                  stopped.countDown();
                },
                "ticker-shutdown"));
    w.joined().join();
    System.out.println(args[1] + ": joined " + args[0] + ", ticking to " + args[2]);
    stopped.await();
  }
}
