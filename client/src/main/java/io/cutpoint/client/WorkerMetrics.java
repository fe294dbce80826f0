package io.cutpoint.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one worker, and optionally the same counts published to a Micrometer registry.
 * Several workers may share a registry: their counts add up (no worker id is ever a tag).
 */
final class WorkerMetrics {

  private final LongAdder messagesSent = new LongAdder();
  private final LongAdder messagesReceived = new LongAdder();
  private final LongAdder markersSent = new LongAdder();
  private final LongAdder markersReceived = new LongAdder();
  private final LongAdder framesSent = new LongAdder();
  private final LongAdder framesResent = new LongAdder();
  private final LongAdder reconnects = new LongAdder();
  private final LongAdder markersAhead = new LongAdder();
  private final LongAdder snapshotsCompleted = new LongAdder();
  private final LongAdder snapshotsFailed = new LongAdder();

  private final Counter mMessagesSent;
  private final Counter mMessagesReceived;
  private final Counter mMarkersSent;
  private final Counter mMarkersReceived;
  private final Counter mMarkersAhead;
  private final Counter mFramesSent;
  private final Counter mFramesResent;
  private final Counter mReconnects;
  private final Counter mSnapshotsCompleted;
  private final Counter mSnapshotsFailed;

  WorkerMetrics(MeterRegistry registry) {
    mMessagesSent =
        counter(registry, "cutpoint.worker.messages.sent", "Data messages the application sent");
    mMessagesReceived =
        counter(
            registry,
            "cutpoint.worker.messages.received",
            "Data messages delivered to the application, replayed ones included");
    mMarkersSent =
        counter(registry, "cutpoint.worker.markers.sent", "Markers put on outgoing channels");
    mMarkersReceived =
        counter(
            registry, "cutpoint.worker.markers.received", "Markers taken from incoming channels");
    mMarkersAhead =
        counter(
            registry,
            "cutpoint.worker.markers.ahead",
            "Markers taken as they were read, with data queued before them");
    mFramesSent =
        counter(registry, "cutpoint.worker.frames.sent", "Frames written to channel streams");
    mFramesResent =
        counter(
            registry, "cutpoint.worker.frames.resent", "Frames written again after a reconnect");
    mReconnects =
        counter(
            registry,
            "cutpoint.worker.channel.reconnects",
            "Channel streams reopened after a failure");
    mSnapshotsCompleted =
        registry == null
            ? null
            : Counter.builder("cutpoint.worker.local.snapshots")
                .description("Local snapshots by outcome")
                .tag("outcome", "completed")
                .register(registry);
    mSnapshotsFailed =
        registry == null
            ? null
            : Counter.builder("cutpoint.worker.local.snapshots")
                .description("Local snapshots by outcome")
                .tag("outcome", "failed")
                .register(registry);
  }

  private static Counter counter(MeterRegistry registry, String name, String description) {
    return registry == null
        ? null
        : Counter.builder(name).description(description).register(registry);
  }

  private static void add(LongAdder own, Counter published, long n) {
    own.add(n);
    if (published != null) {
      published.increment(n);
    }
  }

  void messagesSent(int n) {
    if (n > 0) {
      add(messagesSent, mMessagesSent, n);
    }
  }

  void messageReceived() {
    add(messagesReceived, mMessagesReceived, 1);
  }

  void markerSent() {
    add(markersSent, mMarkersSent, 1);
  }

  void markerReceived() {
    add(markersReceived, mMarkersReceived, 1);
  }

  void markerAhead() {
    add(markersAhead, mMarkersAhead, 1);
  }

  void frameSent(boolean resend) {
    add(framesSent, mFramesSent, 1);
    if (resend) {
      add(framesResent, mFramesResent, 1);
    }
  }

  void reconnect() {
    add(reconnects, mReconnects, 1);
  }

  void snapshotCompleted() {
    add(snapshotsCompleted, mSnapshotsCompleted, 1);
  }

  void snapshotFailed() {
    add(snapshotsFailed, mSnapshotsFailed, 1);
  }

  WorkerCounters snapshot() {
    return new WorkerCounters(
        messagesSent.sum(),
        messagesReceived.sum(),
        markersSent.sum(),
        markersReceived.sum(),
        markersAhead.sum(),
        framesSent.sum(),
        framesResent.sum(),
        reconnects.sum(),
        snapshotsCompleted.sum(),
        snapshotsFailed.sum());
  }
}
