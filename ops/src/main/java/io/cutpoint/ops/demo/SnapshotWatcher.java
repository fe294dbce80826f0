package io.cutpoint.ops.demo;

import io.cutpoint.api.StatusText;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.Event;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.WatchEventsRequest;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import io.grpc.Channel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Follows the coordinator's events and checks every committed snapshot for conservation of money,
 * on its own thread, as the snapshots complete.
 */
final class SnapshotWatcher implements AutoCloseable {

  private static final Event END = Event.getDefaultInstance();

  private final Channel channel;
  private final SnapshotChecker checker;
  private final DemoStats stats;
  private final DemoOutput output;
  private final BlockingQueue<Event> queue = new LinkedBlockingQueue<>();
  private final Set<Long> seen = ConcurrentHashMap.newKeySet();
  private final List<long[]> recoveryWindows = new ArrayList<>();
  private volatile long recoveringSince;
  private final Thread thread;
  private volatile ClientCallStreamObserver<WatchEventsRequest> call;
  private volatile String lastCheck = "no snapshot checked yet";

  SnapshotWatcher(Channel channel, SnapshotChecker checker, DemoStats stats, DemoOutput output) {
    this.channel = channel;
    this.checker = checker;
    this.stats = stats;
    this.output = output;
    this.thread = new Thread(this::loop, "cutpoint-demo-checker");
    this.thread.setDaemon(true);
  }

  /** Subscribes to the event stream and starts checking. */
  void start() {
    AdminGrpc.newStub(channel)
        .watchEvents(
            WatchEventsRequest.getDefaultInstance(),
            new ClientResponseObserver<WatchEventsRequest, Event>() {
              @Override
              public void beforeStart(ClientCallStreamObserver<WatchEventsRequest> requestStream) {
                call = requestStream;
              }

              @Override
              public void onNext(Event e) {
                queue.add(e);
              }

              @Override
              public void onError(Throwable t) {
                queue.add(END);
              }

              @Override
              public void onCompleted() {
                queue.add(END);
              }
            });
    thread.start();
  }

  /**
   * A recovery (crash, replacement, rollback) starts now: a snapshot started before it ends may
   * fail its cut check (the replacement's counters restart), which the coordinator rightly refuses.
   */
  void recoveryStarted(long nowMs) {
    recoveringSince = nowMs;
  }

  /** The recovery that started last is over. */
  synchronized void recoveryEnded(long nowMs) {
    recoveryWindows.add(new long[] {recoveringSince, nowMs});
    recoveringSince = 0;
  }

  String lastCheck() {
    return lastCheck;
  }

  /** Checks {@code snapshotId} now if the event stream did not already deliver it. */
  void checkIfUnseen(long snapshotId, long durationMicros) {
    if (seen.add(snapshotId)) {
      completed(snapshotId, durationMicros);
    }
  }

  private void loop() {
    try {
      while (true) {
        Event e = queue.take();
        if (e == END) {
          return;
        }
        try {
          handle(e);
        } catch (StatusRuntimeException ex) {
          output.event(
              DemoEvent.of(
                  "error",
                  "checking snapshot " + e.getSnapshotId() + ": " + StatusText.of(ex.getStatus()),
                  Json.object()
                      .id("snapshot_id", e.getSnapshotId())
                      .put("error", StatusText.of(ex.getStatus()))));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void handle(Event e) {
    switch (e.getType()) {
      case EVENT_TYPE_SNAPSHOT_COMPLETED -> {
        if (seen.add(e.getSnapshotId())) {
          completed(e.getSnapshotId(), e.getDurationMicros());
        }
      }
      case EVENT_TYPE_SNAPSHOT_ABORTED -> {
        stats.snapshotsAborted.incrementAndGet();
        output.event(
            DemoEvent.of(
                "aborted",
                "snapshot " + e.getSnapshotId() + " aborted: " + e.getMessage(),
                Json.object().id("snapshot_id", e.getSnapshotId()).put("reason", e.getMessage())));
      }
      case EVENT_TYPE_SNAPSHOT_FAILED -> failed(e);
      case EVENT_TYPE_WORKER_JOINED,
          EVENT_TYPE_WORKER_LOST,
          EVENT_TYPE_ROLLBACK_STARTED,
          EVENT_TYPE_ROLLBACK_COMPLETED,
          EVENT_TYPE_ROLLBACK_FALLBACK,
          EVENT_TYPE_ROLLBACK_FAILED -> {
        String type = Human.enumName(e.getType(), "EVENT_TYPE_");
        String text =
            type.replace('_', ' ')
                + (e.getWorkerId().isEmpty() ? "" : " " + e.getWorkerId())
                + (e.getSnapshotId() == 0 ? "" : " snapshot " + e.getSnapshotId())
                + (e.getMessage().isEmpty() ? "" : ": " + e.getMessage());
        output.event(
            DemoEvent.of(
                "cluster",
                text,
                Json.object()
                    .put("type", type)
                    .put("worker", e.getWorkerId())
                    .id("snapshot_id", e.getSnapshotId())
                    .id("epoch", e.getEpoch())
                    .put("message", e.getMessage())));
      }
      default -> {
        // Started, deleted and analysis events are not shown.
      }
    }
  }

  private void completed(long id, long durationMicros) {
    stats.snapshotsCompleted.incrementAndGet();
    SnapshotChecker.Outcome o = checker.check(id);
    long micros =
        durationMicros > 0
            ? durationMicros
            : o.manifest() == null ? 0 : o.manifest().getTimings().getTotalMicros();
    if (micros > 0) {
      stats.snapshotTook(micros);
    }
    Json.Obj fields =
        Json.object()
            .id("snapshot_id", id)
            .put("duration_ms", micros / 1000.0)
            .put("check", o.kind().name().toLowerCase(Locale.ROOT));
    if (o.result() != null) {
      fields
          .put("total", o.result().total())
          .put("balances", o.result().balances())
          .put("in_flight", o.result().inFlight())
          .put("in_flight_transfers", o.result().inFlightMessages())
          .put("expected", o.result().expected());
    }
    String took = micros > 0 ? " (" + Human.micros(micros) + ")" : "";
    switch (o.kind()) {
      case CONSERVED -> {
        stats.snapshotsChecked.incrementAndGet();
        lastCheck = "snapshot " + id + " conserved: " + o.detail();
        output.event(
            DemoEvent.of(
                "snapshot", "snapshot " + id + took + " conserved: " + o.detail(), fields));
      }
      case VIOLATED -> {
        stats.snapshotsChecked.incrementAndGet();
        stats.conservationViolations.incrementAndGet();
        lastCheck = "snapshot " + id + " VIOLATED: " + o.detail();
        output.event(
            DemoEvent.bad(
                "violation",
                "snapshot " + id + took + " violates conservation: " + o.detail(),
                fields.put("detail", o.detail())));
      }
      case PARTIAL -> {
        stats.snapshotsPartial.incrementAndGet();
        output.event(
            DemoEvent.of(
                "snapshot",
                "snapshot " + id + took + " not checked: " + o.detail(),
                fields.put("detail", o.detail())));
      }
      default ->
          output.event(DemoEvent.of("snapshot", "snapshot " + id + " " + o.detail(), fields));
    }
  }

  private void failed(Event e) {
    stats.snapshotsFailed.incrementAndGet();
    long started = e.getAtUnixMs();
    try {
      started =
          checker
              .admin()
              .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(e.getSnapshotId()).build())
              .getManifest()
              .getStartedAtUnixMs();
    } catch (StatusRuntimeException ignored) {
      // Use the event's time.
    }
    boolean expected = inRecovery(started);
    Json.Obj fields =
        Json.object()
            .id("snapshot_id", e.getSnapshotId())
            .put("reason", e.getMessage())
            .put("during_recovery", expected);
    if (expected) {
      output.event(
          DemoEvent.of(
              "failed",
              "snapshot "
                  + e.getSnapshotId()
                  + " failed its cut check during a recovery (not stored): "
                  + e.getMessage(),
              fields));
    } else {
      stats.snapshotsFailedUnexpected.incrementAndGet();
      output.event(
          DemoEvent.bad(
              "failed",
              "snapshot " + e.getSnapshotId() + " failed its cut check: " + e.getMessage(),
              fields));
    }
  }

  private synchronized boolean inRecovery(long atMs) {
    long since = recoveringSince;
    if (since > 0 && atMs >= since) {
      return true;
    }
    for (long[] w : recoveryWindows) {
      if (atMs >= w[0] && atMs <= w[1]) {
        return true;
      }
    }
    return false;
  }

  /** Stops following events after handling those already received. */
  @Override
  public void close() {
    ClientCallStreamObserver<WatchEventsRequest> c = call;
    queue.add(END);
    try {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (c != null) {
      c.cancel("demo finished", null);
    }
  }
}
