package io.cutpoint.server.testing;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.ManagedChannel;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptor;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * A coordinator in the test's JVM over a RocksDB store in the config's data directory, with a
 * channel and stubs: on the in-process transport, or on a loopback port ({@link #onLoopback}).
 * Closing it closes the channel and the coordinator (and with it the store).
 */
public final class InProcessCoordinator implements AutoCloseable {

  public final CoordinatorServer server;
  public final ManagedChannel channel;
  public final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  public InProcessCoordinator(CoordinatorConfig config) {
    this(config, UnaryOperator.identity());
  }

  /**
   * Over the RocksDB store as {@code wrap} returns it (e.g. one that records calls). Calls run on
   * the caller's thread (direct executors), which keeps a test's steps in order.
   */
  public InProcessCoordinator(CoordinatorConfig config, UnaryOperator<SnapshotStore> wrap) {
    this(config, wrap, Transport.inProcess(true));
  }

  private InProcessCoordinator(
      CoordinatorConfig config, UnaryOperator<SnapshotStore> wrap, Transport transport) {
    server =
        CoordinatorServer.start(
            config,
            registry,
            transport.server(),
            wrap.apply(RocksSnapshotStore.open(config.dataDir())));
    channel = transport.connect().apply(server);
  }

  /** How the coordinator is served, and how the channel reaches it once it listens. */
  private record Transport(
      ServerBuilder<?> server, Function<CoordinatorServer, ManagedChannel> connect) {

    static Transport inProcess(boolean direct) {
      String name = InProcessServerBuilder.generateName();
      InProcessServerBuilder server = InProcessServerBuilder.forName(name);
      InProcessChannelBuilder channel = InProcessChannelBuilder.forName(name);
      return direct
          ? new Transport(server.directExecutor(), s -> channel.directExecutor().build())
          : new Transport(server, s -> channel.build());
    }
  }

  /**
   * On the in-process transport with gRPC's own executors, as on a network port: a handler that
   * waits for something holds a thread of gRPC's, not the caller, whose deadline then fires.
   */
  public static InProcessCoordinator pooled(
      CoordinatorConfig config, UnaryOperator<SnapshotStore> wrap) {
    return new InProcessCoordinator(config, wrap, Transport.inProcess(false));
  }

  /** On an ephemeral loopback port (Netty, plaintext), every call through {@code interceptor}. */
  public static InProcessCoordinator onLoopback(
      CoordinatorConfig config, ServerInterceptor interceptor) {
    return new InProcessCoordinator(
        config,
        UnaryOperator.identity(),
        new Transport(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .intercept(interceptor),
            server ->
                NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build()));
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
