package io.cutpoint.ops.bench;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.ops.admin.SnapshotTrace;
import io.cutpoint.ops.local.LocalSharedStore;
import io.cutpoint.ops.local.ScratchDirs;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * An embedded coordinator on a loopback port over a temporary RocksDB store, or over the shared
 * store on an S3 API server and a ZooKeeper server in this JVM ({@link LocalSharedStore}), with an
 * Admin client. No periodic snapshots: the benchmark triggers them.
 */
final class BenchCoordinator implements AutoCloseable {

  /** A finished snapshot as the operator saw it. */
  record Taken(SnapshotManifest manifest, double clientMillis) {
    boolean complete() {
      return manifest.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE;
    }

    /**
     * Hands {@code step} each step of this snapshot's critical path, in order, in milliseconds:
     * {@link LatencyPhase#TRIGGER_AND_REPLY} (the client's time outside the coordinator's trace),
     * then the trace's own steps; returns the trace, empty (and no step) if the manifest has none.
     */
    java.util.Optional<SnapshotTrace> steps(java.util.function.ObjDoubleConsumer<String> step) {
      java.util.Optional<SnapshotTrace> trace = SnapshotTrace.of(manifest);
      trace.ifPresent(
          t -> {
            step.accept(LatencyPhase.TRIGGER_AND_REPLY, Math.max(0, clientMillis - t.endMillis()));
            t.criticalPath().forEach(step::accept);
          });
      return trace;
    }
  }

  /**
   * The coordinator's counts of the state bytes of delivered pieces so far: those the workers
   * uploaded ({@code cutpoint.state.uploaded}) and those the store already held as content chunks
   * ({@code cutpoint.state.deduplicated}). NaN when the coordinator has no such counter.
   */
  record StateBytes(double uploaded, double deduplicated) {
    double delivered() {
      return uploaded + deduplicated;
    }
  }

  /** The name of the RocksDB store in reports. */
  static final String ROCKSDB = "rocksdb";

  /** The name of the shared store in reports. */
  static final String S3 = "s3";

  private final Path dataDir;
  private final MeterRegistry registry;
  private final CoordinatorServer server;
  private final LocalSharedStore shared;
  private final ManagedChannel adminChannel;
  private final AdminGrpc.AdminBlockingStub admin;

  private BenchCoordinator(Path dataDir, MeterRegistry registry, CoordinatorServer server) {
    this(dataDir, registry, server, null);
  }

  private BenchCoordinator(
      Path dataDir, MeterRegistry registry, CoordinatorServer server, LocalSharedStore shared) {
    this.dataDir = dataDir;
    this.registry = registry;
    this.server = server;
    this.shared = shared;
    this.adminChannel =
        ManagedChannelBuilder.forTarget(server.target())
            .usePlaintext()
            .maxInboundMessageSize(64 << 20)
            .build();
    this.admin = AdminGrpc.newBlockingStub(adminChannel);
  }

  static BenchCoordinator start(BenchPlan plan) {
    return start(plan, ROCKSDB);
  }

  /** {@code storeName}: {@link #ROCKSDB} or {@link #S3}. */
  static BenchCoordinator start(BenchPlan plan, String storeName) {
    Path parent = plan.dataDir();
    try {
      Path dir =
          parent == null
              ? Files.createTempDirectory("cutpoint-bench-")
              : Files.createTempDirectory(Files.createDirectories(parent), "cutpoint-bench-");
      CoordinatorConfig config =
          CoordinatorConfig.builder()
              .port(0)
              .dataDir(dir)
              .snapshotInterval(Duration.ZERO)
              .snapshotTimeout(Duration.ofSeconds(120))
              .retainCompleteSnapshots(2)
              .maxRecordedBytesPerSnapshot(1L << 30)
              .rollbackDeadline(Duration.ofMinutes(5))
              .build();
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try {
        if (storeName.equals(S3)) {
          return onSharedStore(dir, config, registry);
        }
        if (plan.syncStore()) {
          return new BenchCoordinator(dir, registry, CoordinatorServer.start(config, registry));
        }
        SnapshotStore store =
            RocksSnapshotStore.open(dir, RocksSnapshotStore.Options.DEFAULT.withSyncWrites(false));
        try {
          return new BenchCoordinator(
              dir,
              registry,
              CoordinatorServer.start(
                  config,
                  registry,
                  NettyServerBuilder.forAddress(new InetSocketAddress(0)),
                  store));
        } catch (RuntimeException e) {
          store.close();
          throw e;
        }
      } catch (IOException | RuntimeException e) {
        ScratchDirs.delete(dir);
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded coordinator: " + e.getMessage(), e);
    }
  }

  /** The coordinator over an S3SnapshotStore on a local S3 server, its catalog in ZooKeeper. */
  private static BenchCoordinator onSharedStore(
      Path dir, CoordinatorConfig config, MeterRegistry registry) {
    LocalSharedStore shared = LocalSharedStore.start();
    try {
      SnapshotStore store = shared.open("bench", "/cutpoint-bench");
      try {
        return new BenchCoordinator(
            dir,
            registry,
            CoordinatorServer.start(
                config, registry, NettyServerBuilder.forAddress(new InetSocketAddress(0)), store),
            shared);
      } catch (RuntimeException e) {
        store.close();
        throw e;
      }
    } catch (RuntimeException e) {
      shared.close();
      throw e;
    }
  }

  /** {@link #ROCKSDB} or {@link #S3}. */
  String storeName() {
    return shared == null ? ROCKSDB : S3;
  }

  String target() {
    return server.target();
  }

  SnapshotStore store() {
    return server.context().store();
  }

  /** The state byte counters now; read from the coordinator's meter registry, never blocks it. */
  StateBytes stateBytes() {
    return new StateBytes(count("cutpoint.state.uploaded"), count("cutpoint.state.deduplicated"));
  }

  private double count(String counter) {
    Counter c = registry.find(counter).counter();
    return c == null ? Double.NaN : c.count();
  }

  /** Triggers a snapshot and waits for its outcome; the time is measured by this client. */
  Taken snapshot() {
    long start = System.nanoTime();
    SnapshotManifest m =
        admin
            .withDeadlineAfter(180, TimeUnit.SECONDS)
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
            .getManifest();
    return new Taken(m, (System.nanoTime() - start) / 1e6);
  }

  /** Rolls back to {@code snapshotId} and waits until every worker resumed. */
  RollbackResponse rollback(long snapshotId) {
    return admin
        .withDeadlineAfter(10, TimeUnit.MINUTES)
        .rollback(RollbackRequest.newBuilder().setSnapshotId(snapshotId).setWait(true).build());
  }

  /** Per worker, the snapshot whose state it reports it keeps on its own disk (0: none). */
  java.util.Map<String, Long> localCopies() {
    java.util.Map<String, Long> out = new java.util.TreeMap<>();
    admin
        .getCluster(io.cutpoint.api.v1.GetClusterRequest.getDefaultInstance())
        .getWorkersList()
        .forEach(w -> out.put(w.getDecl().getWorkerId(), w.getLocalCopySnapshotId()));
    return out;
  }

  @Override
  public void close() {
    adminChannel.shutdownNow();
    try {
      adminChannel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.close();
    if (shared != null) {
      shared.close();
    }
    ScratchDirs.delete(dataDir);
  }
}
