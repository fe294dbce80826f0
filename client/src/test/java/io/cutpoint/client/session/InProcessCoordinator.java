package io.cutpoint.client.session;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** A {@link FakeCoordinator} served in-process, a channel to it, and a restart button. */
final class InProcessCoordinator implements AutoCloseable {

  final FakeCoordinator fake = new FakeCoordinator();

  /** The headers of every call, in arrival order. */
  final List<Metadata> headers = new CopyOnWriteArrayList<>();

  final String name = InProcessServerBuilder.generateName();
  final ManagedChannel channel;
  private Server server;

  InProcessCoordinator() {
    start();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  /** Starts (again) on the same name. */
  void start() {
    try {
      server =
          InProcessServerBuilder.forName(name)
              .directExecutor()
              .addService(
                  ServerInterceptors.intercept(
                      fake,
                      new ServerInterceptor() {
                        @Override
                        public <Q, R> ServerCall.Listener<Q> interceptCall(
                            ServerCall<Q, R> call, Metadata h, ServerCallHandler<Q, R> next) {
                          headers.add(h);
                          return next.startCall(call, h);
                        }
                      }))
              .build()
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Kills the server as a crash would: every call fails. */
  void stop() {
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stop();
  }
}
