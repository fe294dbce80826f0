package io.cutpoint.client;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerServiceDefinition;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A worker's gRPC plumbing. One Netty event loop carries its channel server and all its client
 * connections, and is the worker's event loop too: with direct executors on both, a frame's
 * handlers run where Netty reads it, and a frame the worker writes joins its connection on the same
 * thread. The loop is the worker's own, {@code cutpoint-<id>-events} (one thread, since all of its
 * channels run on it), or, for a worker built with a shared loop, one of the process's shared group
 * {@code cutpoint-io-N}. The process's shared timer runs its parking sweeps and reconnects (see
 * {@link SharedThreads}).
 */
final class WorkerTransport {

  /** Pings on idle connections detect a peer that vanished without closing them. */
  private static final long KEEPALIVE_SECONDS = 10;

  private final SharedThreads shared;
  private final java.util.concurrent.atomic.AtomicBoolean threadsReleased =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final io.grpc.netty.shaded.io.netty.channel.EventLoop loop;
  private final EventLoopGroup ownGroup;
  private final ScheduledExecutorService timer;
  private final ServerCredentials serverCredentials;
  private final ChannelCredentials channelCredentials;
  private Server server;

  WorkerTransport(String workerId, boolean sharedLoop) {
    this(workerId, sharedLoop, null, null);
  }

  /**
   * With TLS (or other) credentials for the channel server and the connections to peers; null =
   * plaintext.
   */
  WorkerTransport(
      String workerId,
      boolean sharedLoop,
      ServerCredentials serverCredentials,
      ChannelCredentials channelCredentials) {
    this.serverCredentials =
        serverCredentials == null ? InsecureServerCredentials.create() : serverCredentials;
    this.channelCredentials =
        channelCredentials == null ? InsecureChannelCredentials.create() : channelCredentials;
    shared = SharedThreads.acquire();
    ownGroup = sharedLoop ? null : new NioEventLoopGroup(1, new Named(workerId));
    loop = (ownGroup == null ? shared.io() : ownGroup).next();
    timer = shared.timer();
  }

  /** Names the one thread of a worker's own event loop {@code cutpoint-<id>-events}. */
  private static final class Named extends DefaultThreadFactory {
    private final String name;

    Named(String workerId) {
      super("cutpoint-" + workerId + "-events", true);
      this.name = "cutpoint-" + workerId + "-events";
    }

    @Override
    protected Thread newThread(Runnable r, String ignored) {
      return super.newThread(r, name);
    }
  }

  /** The Netty event loop of all the worker's channels: the worker's event loop runs on it. */
  io.grpc.netty.shaded.io.netty.channel.EventLoop loop() {
    return loop;
  }

  /** Binds the channel server and returns the port it listens on. */
  int listen(String host, int port, ServerServiceDefinition service, int maxInboundMessageBytes)
      throws IOException {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, port), serverCredentials)
            .bossEventLoopGroup(loop)
            .workerEventLoopGroup(loop)
            .channelType(NioServerSocketChannel.class)
            .directExecutor()
            .permitKeepAliveTime(KEEPALIVE_SECONDS / 2, TimeUnit.SECONDS)
            .maxInboundMessageSize(maxInboundMessageBytes)
            .addService(service)
            .intercept(new io.cutpoint.api.BoundedStatusDescriptions())
            .build()
            .start();
    return server.getPort();
  }

  /** True under mutual TLS: the channel server requires every peer to present a certificate. */
  boolean certificatesRequired() {
    return serverCredentials instanceof TlsServerCredentials tls
        && tls.getClientAuth() == TlsServerCredentials.ClientAuth.REQUIRE;
  }

  ManagedChannel newChannel(String address) {
    return NettyChannelBuilder.forAddress(PeerEndpoint.parse(address), channelCredentials)
        .eventLoopGroup(loop)
        .channelType(NioSocketChannel.class)
        .directExecutor()
        .disableRetry()
        .keepAliveTime(KEEPALIVE_SECONDS, TimeUnit.SECONDS)
        .keepAliveTimeout(KEEPALIVE_SECONDS, TimeUnit.SECONDS)
        .build();
  }

  /**
   * A builder of a channel to the coordinator at {@code target} whose I/O runs on the worker's
   * event loop, with a direct executor: the session's stream events, commands and upload writes
   * then stay on the loop's thread instead of crossing from a gRPC thread.
   */
  NettyChannelBuilder coordinatorChannel(String target, ChannelCredentials credentials) {
    return NettyChannelBuilder.forTarget(target, credentials)
        .eventLoopGroup(loop)
        .channelType(NioSocketChannel.class)
        .directExecutor();
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  /** Stops accepting streams (the port is released once {@link #awaitClosed} returns). */
  void shutdownServer() {
    if (server != null) {
      server.shutdownNow();
    }
  }

  /**
   * Waits for the server and {@code channels} to terminate; on the loop's own thread it cannot
   * (they end there), and returns at once.
   */
  void awaitClosed(List<ManagedChannel> channels) {
    if (loop.inEventLoop()) {
      return;
    }
    try {
      for (ManagedChannel c : channels) {
        c.awaitTermination(5, TimeUnit.SECONDS);
      }
      if (server != null) {
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Lets go of the shared threads (the last worker stops them) and ends an own I/O group. Only the
   * first call does: a worker that could not listen calls it, and then again when it is closed.
   */
  void shutdownThreads() {
    if (!threadsReleased.compareAndSet(false, true)) {
      return;
    }
    if (ownGroup != null) {
      var done = ownGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      if (!loop.inEventLoop()) {
        done.awaitUninterruptibly(5, TimeUnit.SECONDS);
      }
    }
    shared.release();
  }
}
