package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.Worker;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session over {@link Worker#coordinatorChannel} crosses no thread: the coordinator's commands
 * are read from the network on the worker's event loop, where the worker runs them, and the upload
 * of the piece is written there too, where it was captured. The same session over an ordinary
 * channel reads its commands on gRPC's own threads, which is the hand-off this channel removes; the
 * second test shows that the check tells the two apart.
 */
class SessionChannelOnTheLoopTest {

  private final FakeCoordinator fake = new FakeCoordinator();
  private final Server server;
  private final Worker worker = SessionOnTheLoopTest.solo("looped");

  /** Threads on which the session's calls delivered a message, and on which they sent one. */
  private final Set<String> received = ConcurrentHashMap.newKeySet();

  private final Set<String> uploadsSent = ConcurrentHashMap.newKeySet();
  private ManagedChannel channel;
  private CoordinatorSession session;

  SessionChannelOnTheLoopTest() throws Exception {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(fake)
            .build()
            .start();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (session != null) {
      session.close();
    }
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    worker.close();
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void commandsAreReadAndUploadsWrittenOnTheWorkersEventLoop() throws Exception {
    snapshotOver(
        worker.coordinatorChannel(
            "127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create()));
    String loop = loopThread();
    assertThat(loop).isEqualTo("cutpoint-" + worker.workerId() + "-events");
    assertThat(received).as("threads that read the coordinator's messages").containsOnly(loop);
    assertThat(uploadsSent).as("threads that wrote the upload's parts").containsOnly(loop);
  }

  @Test
  void overAnOrdinaryChannelCommandsAreReadOnAnotherThread() throws Exception {
    snapshotOver(
        Grpc.newChannelBuilder(
            "127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create()));
    assertThat(received)
        .as("threads that read the coordinator's messages")
        .isNotEmpty()
        .doesNotContain(loopThread());
  }

  /** Joins over a channel built by {@code builder}, commands a snapshot, waits for its upload. */
  private void snapshotOver(ManagedChannelBuilder<?> builder) throws Exception {
    channel = builder.intercept(new ThreadRecorder()).build();
    session = new CoordinatorSession(channel, worker, SessionOptions.defaults());
    session.start().joined().get(10, TimeUnit.SECONDS);
    fake.startSnapshot(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> fake.uploadedOk(1));
  }

  private String loopThread() throws Exception {
    CompletableFuture<String> name = new CompletableFuture<>();
    worker.execute(() -> name.complete(Thread.currentThread().getName()));
    return name.get(5, TimeUnit.SECONDS);
  }

  /** Records where each call's messages arrive, and where an upload's parts are sent from. */
  private final class ThreadRecorder implements ClientInterceptor {
    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(
        MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      boolean upload = method.getBareMethodName().equals("UploadSnapshot");
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          super.start(
              new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onMessage(R message) {
                  received.add(Thread.currentThread().getName());
                  super.onMessage(message);
                }
              },
              headers);
        }

        @Override
        public void sendMessage(Q message) {
          if (upload) {
            uploadsSent.add(Thread.currentThread().getName());
          }
          super.sendMessage(message);
        }
      };
    }
  }
}
