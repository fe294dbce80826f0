package io.cutpoint.server.rollback;

import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.Event;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionOptions;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.events.EventHub;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.server.testing.Teller;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A coordinator over RocksDB in a temp directory (in-process gRPC) and bank workers in this JVM,
 * each a real {@link Worker} with a real {@link CoordinatorSession}, fully connected. Workers can
 * crash (session and worker closed) and come back with the same id and a fresh state; the
 * coordinator can stop and start again on the same directory. Closes everything.
 */
final class RollbackCluster implements AutoCloseable {

  static final long BALANCE = 10_000;

  /** One worker with its application, its recording session view and its session. */
  record Member(
      Worker worker, Teller teller, RecordingControl control, CoordinatorSession session) {}

  private final Path dir;
  private final CoordinatorConfig config;
  private final String name = InProcessServerBuilder.generateName();
  private final SortedMap<String, List<String>> peers = new TreeMap<>();
  final SortedMap<String, Member> members = new TreeMap<>();
  final List<Event> events = new CopyOnWriteArrayList<>();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ManagedChannel channel;
  final AdminGrpc.AdminBlockingStub admin;
  private final ScheduledExecutorService driver =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "rollback-test-traffic");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean traffic;
  private long seed = 1;
  CorruptibleStore corruptible;
  SnapshotStore store;
  CoordinatorServer server;

  RollbackCluster(Path dir, CoordinatorConfig.Builder config, String... ids) {
    this(dir, config, Duration.ZERO, ids);
  }

  /** With periodic snapshots every {@code interval} (zero: only on demand). */
  RollbackCluster(Path dir, CoordinatorConfig.Builder config, Duration interval, String... ids) {
    this.dir = dir;
    this.config =
        config
            .dataDir(dir)
            .snapshotInterval(interval)
            .snapshotTimeout(Duration.ofSeconds(10))
            .heartbeatInterval(Duration.ofMillis(100))
            .heartbeatTimeout(Duration.ofSeconds(3))
            .retainCompleteSnapshots(100)
            .build();
    for (String a : ids) {
      List<String> others = new ArrayList<>();
      for (String b : ids) {
        if (!a.equals(b)) {
          others.add(b);
        }
      }
      peers.put(a, others);
    }
    channel = InProcessChannelBuilder.forName(name).build();
    admin = AdminGrpc.newBlockingStub(channel);
    driver.scheduleWithFixedDelay(this::tick, 2, 2, TimeUnit.MILLISECONDS);
  }

  RollbackCluster start() {
    startCoordinator();
    peers.keySet().forEach(this::startWorker);
    return this;
  }

  /** Starts the coordinator on the store in {@code dir}; damage made before a restart stays. */
  void startCoordinator() {
    Set<Long> damaged = corruptible == null ? Set.of() : corruptible.corrupted();
    corruptible = new CorruptibleStore(RocksSnapshotStore.open(dir));
    damaged.forEach(corruptible::corrupt);
    store = corruptible.asStore();
    EventHub.EventSink collect =
        new EventHub.EventSink() {
          @Override
          public boolean offer(Event event) {
            events.add(event);
            return true;
          }

          @Override
          public void overflowed() {}
        };
    // Subscribe before the rollback service starts: a coordinator that finds a rollback in
    // progress resumes it (and reports ROLLBACK_STARTED) before CoordinatorServer.start returns.
    server =
        CoordinatorServer.start(
            config,
            registry,
            InProcessServerBuilder.forName(name),
            store,
            context -> {
              context.events().subscribe(collect);
              return RollbackCoordinator.factory().create(context);
            });
    // The admin channel saw the old server go: it would fail calls fast until its backoff ends.
    channel.resetConnectBackoff();
  }

  void stopCoordinator() {
    server.close();
  }

  /** Starts worker {@code id} with a fresh balance and waits until it joined. */
  Member startWorker(String id) {
    Member m = launchWorker(id);
    m.session().joined().orTimeout(20, TimeUnit.SECONDS).join();
    return m;
  }

  private volatile boolean contentChunks = true;
  private volatile Path localRecovery;

  /** The workers started from now on keep local copies in {@code dir} (local recovery). */
  RollbackCluster localRecovery(Path dir) {
    localRecovery = dir;
    return this;
  }

  /** Whether the workers started from now on upload content-addressed chunks (the default). */
  RollbackCluster contentChunks(boolean on) {
    contentChunks = on;
    return this;
  }

  /** Starts worker {@code id} with a fresh balance; it joins whenever a coordinator answers. */
  Member launchWorker(String id) {
    List<String> out = peers.get(id);
    Teller teller = new Teller(BALANCE, out, seed++);
    Worker.Builder builder =
        Worker.builder(id).outgoing(out).incoming(out).stateHandler(teller).messageHandler(teller);
    if (localRecovery != null) {
      builder.localRecovery(localRecovery);
    }
    Worker w = builder.build();
    teller.attach(w);
    w.start();
    RecordingControl control = new RecordingControl(w, teller);
    CoordinatorSession s =
        new CoordinatorSession(
            channel,
            control,
            SessionOptions.defaults()
                .withContentChunks(contentChunks)
                .withReconnect(Duration.ofMillis(50), Duration.ofMillis(300))
                .withCloseTimeout(Duration.ofSeconds(2)));
    Member m = new Member(w, teller, control, s);
    synchronized (members) {
      members.put(id, m);
    }
    s.start();
    return m;
  }

  /** Worker {@code id} dies: its session and its process state are gone. */
  void crashWorker(String id) {
    Member m;
    synchronized (members) {
      m = members.remove(id);
    }
    m.session().close();
    m.worker().close();
    await().atMost(Duration.ofSeconds(10)).until(() -> state(id) == WorkerState.WORKER_STATE_LOST);
  }

  /** Worker {@code id} dies while no coordinator runs: nobody sees it go. */
  void crashWorkerUnseen(String id) {
    Member m;
    synchronized (members) {
      m = members.remove(id);
    }
    m.session().close();
    m.worker().close();
  }

  Member member(String id) {
    synchronized (members) {
      return members.get(id);
    }
  }

  WorkerState state(String id) {
    Membership.Member m = server.context().membership().view().members().get(id);
    return m == null ? WorkerState.WORKER_STATE_UNSPECIFIED : m.state();
  }

  void traffic(boolean on) {
    traffic = on;
  }

  private void tick() {
    if (!traffic) {
      return;
    }
    List<Member> now;
    synchronized (members) {
      now = new ArrayList<>(members.values());
    }
    for (Member m : now) {
      try {
        m.worker().execute(m.teller()::transfer);
      } catch (RuntimeException e) {
        // a worker that is closing
      }
    }
  }

  /** Stops traffic and waits until every message was delivered and acknowledged. */
  void quiesce() {
    traffic(false);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              synchronized (members) {
                return members.values().stream().allMatch(m -> m.worker().allAcknowledged());
              }
            });
  }

  long liveTotal() {
    synchronized (members) {
      return members.values().stream().mapToLong(m -> m.teller().balance()).sum();
    }
  }

  long total() {
    return BALANCE * peers.size();
  }

  SnapshotManifest snapshot() {
    return admin
        .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
        .getManifest();
  }

  /** Takes snapshots until a complete one has messages in flight. */
  SnapshotManifest snapshotWithInFlight() {
    for (int i = 0; i < 40; i++) {
      SnapshotManifest m = snapshot();
      if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE && m.getInFlightMessages() > 0) {
        return m;
      }
    }
    throw new AssertionError("no complete snapshot with messages in flight in 40 tries");
  }

  /** The stored state bytes of {@code worker} in {@code snapshotId}. */
  byte[] storedState(long snapshotId, String worker) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    store.readState(snapshotId, worker, out::writeBytes);
    return out.toByteArray();
  }

  LocalSnapshotMeta storedMeta(long snapshotId, String worker) {
    return store.workerMeta(snapshotId, worker).orElseThrow();
  }

  List<InTransitMessage> recorded(long snapshotId, String from, String to) {
    return store.readChannel(snapshotId, ChannelId.of(from, to));
  }

  /** Balances in the stored states plus the amounts recorded in transit. */
  long moneyIn(long snapshotId) {
    long total = 0;
    for (String w : peers.keySet()) {
      total += Teller.balanceOf(storedState(snapshotId, w));
      for (String from : peers.get(w)) {
        for (InTransitMessage m : recorded(snapshotId, from, w)) {
          total += Teller.amountOf(m.payload());
        }
      }
    }
    return total;
  }

  List<Event> events(EventType type) {
    return events.stream().filter(e -> e.getType() == type).toList();
  }

  Map<String, List<String>> peers() {
    return peers;
  }

  double rollbacks(String outcome) {
    var c = registry.find("cutpoint.rollbacks").tag("outcome", outcome).counter();
    return c == null ? 0 : c.count();
  }

  @Override
  public void close() {
    traffic = false;
    driver.shutdownNow();
    List<Member> all;
    synchronized (members) {
      all = new ArrayList<>(members.values());
      members.clear();
    }
    for (Member m : all) {
      m.session().close();
      m.worker().close();
    }
    if (server != null) {
      server.close();
    }
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
      driver.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
