package io.cutpoint.server.events;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.cutpoint.api.v1.Event;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * One watcher's stream: a bounded buffer drained as fast as the watcher's transport is ready (gRPC
 * flow control). When the buffer is full the watcher is dropped. The I/O edge keeps one small lock
 * here: events are offered by whichever thread publishes them and drained by the transport's
 * readiness callback; the monitor guards the buffer, {@code closed} and the observer.
 */
public final class EventStream implements EventHub.EventSink {

  private final ServerCallStreamObserver<Event> observer;
  private final int capacity;

  @GuardedBy("this")
  private final Queue<Event> buffer = new ArrayDeque<>();

  @GuardedBy("this")
  private boolean closed;

  public EventStream(ServerCallStreamObserver<Event> observer, int capacity) {
    this.observer = observer;
    this.capacity = capacity;
  }

  /** Subscribes to {@code hub} and unsubscribes when the watcher goes away. */
  public void attach(EventHub hub) {
    observer.setOnCancelHandler(
        () -> {
          synchronized (this) {
            closed = true;
            buffer.clear();
          }
          hub.unsubscribe(this);
        });
    observer.setOnReadyHandler(this::drain);
    hub.subscribe(this);
  }

  @Override
  public boolean offer(Event event) {
    synchronized (this) {
      if (closed) {
        return true;
      }
      if (buffer.size() >= capacity) {
        return false;
      }
      buffer.add(event);
    }
    drain();
    return true;
  }

  @Override
  public void overflowed() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      buffer.clear();
      try {
        observer.onError(
            Status.RESOURCE_EXHAUSTED
                .withDescription(
                    "event watcher fell more than " + capacity + " events behind and was dropped")
                .asRuntimeException());
      } catch (RuntimeException ignored) {
        // the call may already be cancelled
      }
    }
  }

  /** Ends the stream normally (server shutdown). */
  @Override
  public synchronized void complete() {
    if (!closed) {
      closed = true;
      try {
        observer.onCompleted();
      } catch (RuntimeException ignored) {
        // already cancelled
      }
    }
  }

  private synchronized void drain() {
    while (!closed && observer.isReady() && !buffer.isEmpty()) {
      observer.onNext(buffer.poll());
    }
  }
}
