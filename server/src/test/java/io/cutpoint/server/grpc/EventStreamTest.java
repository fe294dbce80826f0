package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.Event;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.WatchEventsRequest;
import io.cutpoint.server.events.EventHub;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventStreamTest {

  @TempDir Path dir;

  /** A watcher that reads only when told to (manual flow control). */
  private static final class Watcher implements ClientResponseObserver<WatchEventsRequest, Event> {
    final List<Event> events = new CopyOnWriteArrayList<>();
    final CompletableFuture<Status> ended = new CompletableFuture<>();
    volatile ClientCallStreamObserver<WatchEventsRequest> call;
    private final boolean reads;

    Watcher(boolean reads) {
      this.reads = reads;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<WatchEventsRequest> call) {
      this.call = call;
      if (!reads) {
        call.disableAutoRequestWithInitial(0);
      }
    }

    @Override
    public void onNext(Event e) {
      events.add(e);
    }

    @Override
    public void onError(Throwable t) {
      ended.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      ended.complete(Status.OK);
    }
  }

  @Test
  void aWatcherThatDoesNotReadIsDroppedWithoutHoldingUpTheOthers() throws Exception {
    try (InProcessCoordinator c =
        new InProcessCoordinator(InProcessCoordinator.config(dir).build())) {
      Watcher slow = new Watcher(false);
      Watcher fast = new Watcher(true);
      AdminGrpc.newStub(c.channel).watchEvents(WatchEventsRequest.getDefaultInstance(), slow);
      AdminGrpc.newStub(c.channel).watchEvents(WatchEventsRequest.getDefaultInstance(), fast);
      EventHub hub = c.server.context().events();
      await().atMost(Duration.ofSeconds(5)).until(() -> hub.watchers() == 2);

      int n = EventHub.DEFAULT_BUFFER + 500;
      for (int i = 0; i < n; i++) {
        hub.publish(EventType.EVENT_TYPE_SNAPSHOT_STARTED, i + 1, null, "test", 0);
      }

      Status s = slow.ended.get(10, TimeUnit.SECONDS);
      assertThat(s.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(s.getDescription()).contains("fell more than");
      await().atMost(Duration.ofSeconds(10)).until(() -> fast.events.size() == n);
      assertThat(fast.events.get(n - 1).getSnapshotId()).isEqualTo(n);
      assertThat(hub.watchers()).isEqualTo(1);
    }
  }
}
