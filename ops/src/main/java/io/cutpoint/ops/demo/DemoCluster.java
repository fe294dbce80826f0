package io.cutpoint.ops.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/** The bank's workers, the traffic that moves money between them, and crashes. */
final class DemoCluster implements AutoCloseable {

  private static final long TICK_MS = 10;

  private final DemoOptions options;
  private final List<String> coordinators;
  private final io.grpc.ChannelCredentials credentials;
  private final List<String> ids;
  private final Map<String, SortedSet<String>> outgoing;
  private final CaptureLog captures;
  private final AtomicReferenceArray<BankNode> nodes;
  private final AtomicLong transfersOfGoneNodes = new AtomicLong();
  private final ScheduledExecutorService traffic;
  private volatile boolean trafficOn;
  private double owed;

  DemoCluster(
      DemoOptions options,
      List<String> coordinators,
      io.grpc.ChannelCredentials credentials,
      CaptureLog captures) {
    this.options = options;
    this.coordinators = List.copyOf(coordinators);
    this.credentials = credentials;
    this.ids = Topologies.ids(options.workers());
    this.outgoing = Topologies.outgoing(options.topology(), ids, options.seed());
    this.captures = captures;
    this.nodes = new AtomicReferenceArray<>(ids.size());
    this.traffic =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cutpoint-demo-traffic");
              t.setDaemon(true);
              return t;
            });
  }

  List<String> ids() {
    return ids;
  }

  Map<String, SortedSet<String>> outgoing() {
    return outgoing;
  }

  /** Starts every worker and waits until the coordinator welcomed them all. */
  void start(Duration joinTimeout) throws InterruptedException, TimeoutException {
    for (int i = 0; i < ids.size(); i++) {
      nodes.set(i, startNode(i, options.initialBalance(), options.seed() * 31 + i));
    }
    List<CompletableFuture<Void>> joins = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      joins.add(nodes.get(i).joined());
    }
    await(
        CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)),
        joinTimeout,
        "workers to join " + String.join(",", coordinators));
    traffic.scheduleAtFixedRate(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
  }

  private BankNode startNode(int i, long balance, long seed) {
    String id = ids.get(i);
    if (coordinators.size() > 1) {
      return BankNode.follow(
          id,
          outgoing.get(id),
          Topologies.incoming(outgoing, id),
          balance,
          options.maxAmount(),
          seed,
          coordinators,
          credentials,
          captures);
    }
    return BankNode.start(
        id,
        outgoing.get(id),
        Topologies.incoming(outgoing, id),
        balance,
        options.maxAmount(),
        seed,
        coordinators.get(0),
        credentials,
        captures);
  }

  private void tick() {
    if (!trafficOn) {
      return;
    }
    owed += options.ratePerWorker() * TICK_MS / 1000.0;
    int n = (int) owed;
    owed -= n;
    for (int k = 0; k < n; k++) {
      for (int i = 0; i < nodes.length(); i++) {
        nodes.get(i).transferSoon();
      }
    }
  }

  void trafficOn(boolean on) {
    trafficOn = on;
  }

  /**
   * Kills worker {@code i} abruptly and starts a replacement with the same id, which joins with an
   * empty account (zero balance) and waits for a rollback to restore it.
   */
  void crashAndReplace(int i, Duration joinTimeout, long seed)
      throws InterruptedException, TimeoutException {
    BankNode victim = nodes.get(i);
    transfersOfGoneNodes.addAndGet(victim.account().transfersOut());
    victim.crash();
    BankNode replacement = startNode(i, 0, seed);
    nodes.set(i, replacement);
    await(replacement.joined(), joinTimeout, "replacement " + ids.get(i) + " to join");
  }

  /**
   * Waits until every message sent was received (per channel, the sender's count equals the
   * receiver's). Call with traffic off.
   */
  boolean quiesce(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (quiet()) {
        return true;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    return quiet();
  }

  private boolean quiet() {
    for (int i = 0; i < ids.size(); i++) {
      BankNode from = nodes.get(i);
      for (String to : outgoing.get(ids.get(i))) {
        BankNode receiver = nodes.get(ids.indexOf(to));
        if (from.worker().sentCount(to) != receiver.worker().receivedCount(ids.get(i))) {
          return false;
        }
      }
    }
    return true;
  }

  /** Every balance, each read on its worker's event thread. */
  Map<String, Long> balances(Duration timeout) throws InterruptedException, TimeoutException {
    Map<String, Long> balances = new TreeMap<>();
    for (int i = 0; i < ids.size(); i++) {
      balances.put(
          ids.get(i),
          await(nodes.get(i).balanceOnEventThread(), timeout, "balance of " + ids.get(i)));
    }
    return balances;
  }

  /** Balances as last seen (racy; for display). */
  Map<String, Long> balancesNow() {
    Map<String, Long> balances = new TreeMap<>();
    for (int i = 0; i < ids.size(); i++) {
      balances.put(ids.get(i), nodes.get(i).account().balance());
    }
    return balances;
  }

  long transfers() {
    long sum = transfersOfGoneNodes.get();
    for (int i = 0; i < nodes.length(); i++) {
      sum += nodes.get(i).account().transfersOut();
    }
    return sum;
  }

  /** Coordinator messages the workers refused because their leader term was old. */
  long refusedOldTerm() {
    long sum = 0;
    for (int i = 0; i < nodes.length(); i++) {
      sum += nodes.get(i).refusedOldTerm();
    }
    return sum;
  }

  long sendErrors() {
    long sum = 0;
    for (int i = 0; i < nodes.length(); i++) {
      sum += nodes.get(i).sendErrors();
    }
    return sum;
  }

  private static <T> T await(CompletableFuture<T> f, Duration timeout, String what)
      throws InterruptedException, TimeoutException {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "waiting for " + what + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new TimeoutException(
          "gave up waiting for " + what + " after " + timeout.toMillis() + "ms");
    }
  }

  @Override
  public void close() {
    trafficOn = false;
    traffic.shutdownNow();
    try {
      traffic.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (int i = 0; i < nodes.length(); i++) {
      BankNode n = nodes.get(i);
      if (n != null) {
        n.close();
      }
    }
  }
}
