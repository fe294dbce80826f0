package io.cutpoint.server.testing;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.storage.RocksSnapshotStore;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A coordinator on the in-process transport over a RocksDB store in {@code dir}, with a channel and
 * stubs. Closing it closes the channel and the coordinator (and with it the store).
 */
public final class InProcessCoordinator implements AutoCloseable {

  public final CoordinatorServer server;
  public final ManagedChannel channel;
  public final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  public final String name;

  public InProcessCoordinator(CoordinatorConfig config) {
    this(config, java.util.function.UnaryOperator.identity());
  }

  /** Over the RocksDB store as {@code wrap} returns it (e.g. one that records calls). */
  public InProcessCoordinator(
      CoordinatorConfig config,
      java.util.function.UnaryOperator<io.cutpoint.storage.SnapshotStore> wrap) {
    name = InProcessServerBuilder.generateName();
    server =
        CoordinatorServer.start(
            config,
            registry,
            InProcessServerBuilder.forName(name).directExecutor(),
            wrap.apply(RocksSnapshotStore.open(config.dataDir())));
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  /** Defaults for tests: no periodic snapshots, short heartbeats. */
  public static CoordinatorConfig.Builder config(Path dir) {
    return CoordinatorConfig.builder()
        .dataDir(dir)
        .snapshotInterval(java.time.Duration.ZERO)
        .snapshotTimeout(java.time.Duration.ofSeconds(20))
        .heartbeatInterval(java.time.Duration.ofMillis(100))
        .heartbeatTimeout(java.time.Duration.ofSeconds(5));
  }

  public AdminGrpc.AdminBlockingStub admin() {
    return AdminGrpc.newBlockingStub(channel);
  }

  public CoordinatorGrpc.CoordinatorStub async() {
    return CoordinatorGrpc.newStub(channel);
  }

  public CoordinatorGrpc.CoordinatorBlockingStub blocking() {
    return CoordinatorGrpc.newBlockingStub(channel);
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }
}
