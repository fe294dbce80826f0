package io.cutpoint.client;

import static org.awaitility.Awaitility.await;

import io.cutpoint.client.session.SessionOptions;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannelBuilder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A worker's own session ({@link Worker.Builder#coordinators}) connects over the worker's {@link
 * WorkerControl#coordinatorChannel}, whose connection runs on the worker's event loop
 * (SessionChannelOnTheLoopTest shows what that channel does), not over a channel of gRPC's own.
 */
class CoordinatorLinkTest {

  @Test
  void theSessionConnectsOverTheWorkersCoordinatorChannel() {
    try (Worker worker =
        Worker.builder("link")
            .stateHandler(new NoState())
            .messageHandler((f, s, p) -> {})
            .build()) {
      worker.start();
      List<String> asked = new CopyOnWriteArrayList<>();
      WorkerControl recording =
          new ForwardingWorkerControl(worker) {
            @Override
            public ManagedChannelBuilder<?> coordinatorChannel(
                String target, ChannelCredentials credentials) {
              asked.add(target);
              return super.coordinatorChannel(target, credentials);
            }
          };
      // nothing listens there: the session keeps trying, which is all this test needs
      CoordinatorLink link =
          CoordinatorLink.open(
              new CoordinatorLink.Settings(
                  List.of("127.0.0.1:1"),
                  InsecureChannelCredentials.create(),
                  SessionOptions.defaults()),
              recording);
      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> asked.contains("127.0.0.1:1"));
      } finally {
        link.close();
      }
    }
  }
}
