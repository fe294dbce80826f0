package io.cutpoint.server.events;

import io.cutpoint.api.v1.Event;
import io.cutpoint.api.v1.EventType;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans events out to watchers. Publishing never blocks: each watcher has a bounded buffer, and a
 * watcher whose buffer overflows is dropped (its stream ends with RESOURCE_EXHAUSTED).
 */
public final class EventHub {

  private static final Logger log = LoggerFactory.getLogger(EventHub.class);

  /** Default events buffered per watcher. */
  public static final int DEFAULT_BUFFER = 1024;

  private final Clock clock;
  private final LongSupplier epoch;
  private final Set<EventSink> sinks = new CopyOnWriteArraySet<>();

  /** Where events go: a watcher's stream. {@code offer} must not block; false = overflow. */
  public interface EventSink {
    boolean offer(Event event);

    /** The sink overflowed and is dropped. */
    void overflowed();

    /** The hub is closing: end the stream normally. */
    default void complete() {}
  }

  public EventHub(Clock clock, LongSupplier epoch) {
    this.clock = clock;
    this.epoch = epoch;
  }

  public void subscribe(EventSink sink) {
    sinks.add(sink);
  }

  public void unsubscribe(EventSink sink) {
    sinks.remove(sink);
  }

  /** Ends every watcher's stream (shutdown). */
  public void closeAll() {
    for (EventSink sink : sinks) {
      sinks.remove(sink);
      sink.complete();
    }
  }

  public int watchers() {
    return sinks.size();
  }

  /** Publishes an event of {@code type}, stamped with the time and epoch. */
  public void publish(
      EventType type, long snapshotId, String workerId, String message, long durationMicros) {
    Event.Builder b =
        Event.newBuilder()
            .setType(type)
            .setAtUnixMs(clock.millis())
            .setSnapshotId(snapshotId)
            .setEpoch(epoch.getAsLong())
            .setMessage(message == null ? "" : message)
            .setDurationMicros(durationMicros);
    if (workerId != null) {
      b.setWorkerId(workerId);
    }
    publish(b.build());
  }

  public void publish(Event event) {
    for (EventSink sink : sinks) {
      if (!sink.offer(event)) {
        sinks.remove(sink);
        log.warn("dropping an event watcher: it fell behind");
        sink.overflowed();
      }
    }
  }
}
