package io.cutpoint.ops.bench;

import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionOptions;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * An embedded coordinator and one in-JVM worker per id of a {@link Layout}, each joined over
 * loopback gRPC, all channels connected.
 */
final class BenchCluster implements AutoCloseable {

  /** One worker, its application and its session. */
  record Node(
      String id,
      Worker worker,
      CountingApp app,
      ManagedChannel channel,
      CoordinatorSession session) {}

  /** Threads closing workers at once. */
  private static final int CLOSERS = 16;

  private final Layout layout;
  private final BenchCoordinator coordinator;
  private final boolean contentChunks;
  private final java.nio.file.Path localRecovery; // null: none
  private final boolean markersAhead;
  private final Map<String, Node> nodes = new LinkedHashMap<>();

  private BenchCluster(
      Layout layout,
      BenchCoordinator coordinator,
      boolean contentChunks,
      java.nio.file.Path localRecovery,
      boolean markersAhead) {
    this.layout = layout;
    this.coordinator = coordinator;
    this.contentChunks = contentChunks;
    this.localRecovery = localRecovery;
    this.markersAhead = markersAhead;
  }

  static BenchCluster start(Layout layout, BenchPlan plan, Function<String, CountingApp> apps) {
    return start(layout, plan, apps, BenchCoordinator.ROCKSDB);
  }

  /** {@code store}: the coordinator's store, {@link BenchCoordinator#ROCKSDB} or {@code S3}. */
  static BenchCluster start(
      Layout layout, BenchPlan plan, Function<String, CountingApp> apps, String store) {
    return start(layout, plan, apps, store, true);
  }

  /**
   * {@code contentChunks}: whether the workers upload their states as content-addressed chunks,
   * only those the coordinator lacks (the default), or every state byte ({@link
   * SessionOptions#withContentChunks}).
   */
  static BenchCluster start(
      Layout layout,
      BenchPlan plan,
      Function<String, CountingApp> apps,
      String store,
      boolean contentChunks) {
    return start(layout, plan, apps, store, contentChunks, null);
  }

  /** {@code localRecovery}: where the workers keep local copies of their state, or null. */
  static BenchCluster start(
      Layout layout,
      BenchPlan plan,
      Function<String, CountingApp> apps,
      String store,
      boolean contentChunks,
      java.nio.file.Path localRecovery) {
    BenchCluster c =
        new BenchCluster(
            layout,
            BenchCoordinator.start(plan, store),
            contentChunks,
            localRecovery,
            plan.markersAhead());
    try {
      for (String id : layout.ids()) {
        c.nodes.put(id, c.startNode(id, apps.apply(id)));
      }
      List<CompletableFuture<Void>> joins = new ArrayList<>();
      c.nodes.values().forEach(n -> joins.add(n.session().joined()));
      CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      c.awaitConnected(Duration.ofSeconds(60));
      return c;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      c.close();
      throw new IllegalStateException("interrupted while starting " + layout.name(), e);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      c.close();
      throw new IllegalStateException(
          "cluster "
              + layout.name()
              + " of "
              + layout.ids().size()
              + " workers did not start: "
              + e,
          e);
    }
  }

  private Node startNode(String id, CountingApp app) {
    Worker.Builder builder =
        Worker.builder(id)
            .listenOn("127.0.0.1", 0)
            .outgoing(layout.outgoing().get(id))
            .incoming(layout.incoming(id))
            .stateHandler(app)
            .messageHandler(app)
            .markersAhead(markersAhead);
    if (localRecovery != null) {
      builder.localRecovery(localRecovery);
    }
    Worker worker = builder.build().start();
    ManagedChannel channel =
        worker
            .coordinatorChannel(coordinator.target(), io.grpc.InsecureChannelCredentials.create())
            .build();
    try {
      CoordinatorSession session =
          new CoordinatorSession(
                  channel,
                  worker,
                  SessionOptions.defaults()
                      .withReconnect(Duration.ofMillis(50), Duration.ofSeconds(1))
                      .withContentChunks(contentChunks))
              .start();
      return new Node(id, worker, app, channel, session);
    } catch (RuntimeException e) {
      channel.shutdownNow();
      worker.close();
      throw e;
    }
  }

  /** Sends one message on every channel and waits until all arrived: every stream is open. */
  private void awaitConnected(Duration timeout) throws TimeoutException {
    long before = received();
    for (Node n : nodes.values()) {
      for (String to : layout.outgoing().get(n.id())) {
        n.worker().send(to, new byte[1]);
      }
    }
    long target = before + layout.channels();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (received() < target) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException(
            "channels of " + layout.name() + " did not connect within " + timeout);
      }
      Pause.millis(5);
    }
  }

  Layout layout() {
    return layout;
  }

  BenchCoordinator coordinator() {
    return coordinator;
  }

  Node node(String id) {
    return nodes.get(id);
  }

  List<Node> nodes() {
    return List.copyOf(nodes.values());
  }

  /** Messages received by every application so far. */
  long received() {
    long sum = 0;
    for (Node n : nodes.values()) {
      sum += n.app().received();
    }
    return sum;
  }

  /**
   * Closes every session, then every coordinator channel and its worker, in parallel: each close
   * mostly waits for threads to end, and one after the other that adds up to seconds at 128
   * workers.
   */
  @Override
  public void close() {
    parallel(n -> n.session().close());
    parallel(
        n -> {
          n.channel().shutdownNow();
          try {
            n.channel().awaitTermination(5, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          n.worker().close();
        });
    coordinator.close();
  }

  private void parallel(Consumer<Node> action) {
    ExecutorService pool =
        Executors.newFixedThreadPool(Math.max(1, Math.min(CLOSERS, nodes.size())));
    try {
      List<Future<?>> done = new ArrayList<>();
      for (Node n : nodes.values()) {
        done.add(pool.submit(() -> action.accept(n)));
      }
      for (Future<?> f : done) {
        try {
          f.get();
        } catch (ExecutionException e) {
          System.err.println("cutpoint bench: closing a worker failed: " + e.getCause());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      pool.shutdown();
    }
  }
}
