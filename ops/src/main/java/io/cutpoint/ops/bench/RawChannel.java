package io.cutpoint.ops.bench;

import io.cutpoint.api.v1.Ack;
import io.cutpoint.api.v1.ChannelGrpc;
import io.cutpoint.api.v1.ChannelHeader;
import io.cutpoint.api.v1.Frame;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The baseline the data plane is compared with: a bare {@code Channel.Open} bidirectional stream on
 * the same transport setup as a worker (Netty, one NIO thread per side, direct executor), carrying
 * the same {@link Frame}s of repeated items, with none of Cutpoint's logic: the sink counts items
 * and bytes, notes when the last frame arrived and acknowledges each frame; the source waits only
 * for gRPC flow control. The same server also answers a bare unary echo call ({@link #echo}), the
 * transport's floor for one request and its answer.
 */
final class RawChannel implements AutoCloseable {

  private final EventLoopGroup serverGroup = group("cutpoint-bench-raw-server");
  private final EventLoopGroup clientGroup = group("cutpoint-bench-raw-client");
  private final AtomicLong items = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong frames = new AtomicLong();
  private volatile long lastFrameNanos;
  private final Server server;
  private final ManagedChannel channel;

  RawChannel() {
    try {
      server =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .bossEventLoopGroup(serverGroup)
              .workerEventLoopGroup(serverGroup)
              .channelType(NioServerSocketChannel.class)
              .directExecutor()
              .maxInboundMessageSize(8 << 20)
              .addService(new Sink())
              .addService(ECHO_SERVICE)
              .build()
              .start();
    } catch (IOException e) {
      shutdown();
      throw new UncheckedIOException("raw channel cannot listen", e);
    }
    channel =
        NettyChannelBuilder.forAddress(new InetSocketAddress("127.0.0.1", server.getPort()))
            .usePlaintext()
            .eventLoopGroup(clientGroup)
            .channelType(NioSocketChannel.class)
            .directExecutor()
            .build();
  }

  private static EventLoopGroup group(String name) {
    return new NioEventLoopGroup(1, new DefaultThreadFactory(name, true));
  }

  long items() {
    return items.get();
  }

  long bytes() {
    return bytes.get();
  }

  /** Frames received so far. */
  long frames() {
    return frames.get();
  }

  /** {@link System#nanoTime()} when the sink received the last frame. */
  long lastFrameNanos() {
    return lastFrameNanos;
  }

  /** One unary call with {@code payload} as request and answer; returns the answer. */
  byte[] echo(byte[] payload) {
    return ClientCalls.blockingUnaryCall(
        channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), payload);
  }

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private static final MethodDescriptor<byte[], byte[]> ECHO =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("cutpoint.bench.RawEcho/Echo")
          .setRequestMarshaller(BYTES)
          .setResponseMarshaller(BYTES)
          .build();

  private static final ServerServiceDefinition ECHO_SERVICE =
      ServerServiceDefinition.builder("cutpoint.bench.RawEcho")
          .addMethod(
              ECHO,
              ServerCalls.asyncUnaryCall(
                  (request, answer) -> {
                    answer.onNext(request);
                    answer.onCompleted();
                  }))
          .build();

  /** Opens a stream; its first frame carries the header. */
  Source open() {
    return new Source();
  }

  private final class Sink extends ChannelGrpc.ChannelImplBase {
    @Override
    public StreamObserver<Frame> open(StreamObserver<Ack> acks) {
      return new StreamObserver<>() {
        long position;

        @Override
        public void onNext(Frame f) {
          lastFrameNanos = System.nanoTime();
          int n = f.getItemsCount();
          long size = 0;
          for (int i = 0; i < n; i++) {
            size += f.getItems(i).getData().getPayload().size();
          }
          position += n;
          bytes.addAndGet(size);
          items.addAndGet(n);
          frames.incrementAndGet();
          acks.onNext(Ack.newBuilder().setEpoch(f.getEpoch()).setPosition(position).build());
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          acks.onCompleted();
        }
      };
    }
  }

  /** One sending stream. {@link #send} blocks while gRPC's flow control says it is not ready. */
  final class Source implements AutoCloseable {
    private final Object ready = new Object();
    private ClientCallStreamObserver<Frame> out;
    private volatile Throwable error;
    private boolean first = true;

    private Source() {
      ChannelGrpc.newStub(channel)
          .open(
              new ClientResponseObserver<Frame, Ack>() {
                @Override
                public void beforeStart(ClientCallStreamObserver<Frame> requestStream) {
                  out = requestStream;
                  requestStream.setOnReadyHandler(
                      () -> {
                        synchronized (ready) {
                          ready.notifyAll();
                        }
                      });
                }

                @Override
                public void onNext(Ack value) {}

                @Override
                public void onError(Throwable t) {
                  error = t;
                  synchronized (ready) {
                    ready.notifyAll();
                  }
                }

                @Override
                public void onCompleted() {}
              });
    }

    void send(Frame.Builder frame) {
      if (first) {
        frame.setHeader(ChannelHeader.newBuilder().setFrom("raw-a").setTo("raw-b"));
        first = false;
      }
      synchronized (ready) {
        while (!out.isReady()) {
          if (error != null) {
            throw new IllegalStateException("raw stream failed: " + error, error);
          }
          try {
            ready.wait(10);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
          }
        }
      }
      out.onNext(frame.build());
    }

    @Override
    public void close() {
      out.onCompleted();
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    shutdown();
  }

  private void shutdown() {
    serverGroup
        .shutdownGracefully(0, 1, TimeUnit.SECONDS)
        .awaitUninterruptibly(5, TimeUnit.SECONDS);
    clientGroup
        .shutdownGracefully(0, 1, TimeUnit.SECONDS)
        .awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
