package io.cutpoint.server.events;

import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.server.lifecycle.CompletedSnapshot;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.lifecycle.SnapshotListener;
import java.time.Duration;

/** Turns snapshot outcomes into events. */
public final class SnapshotEvents implements SnapshotListener {

  private final EventHub hub;

  public SnapshotEvents(EventHub hub) {
    this.hub = hub;
  }

  @Override
  public void started(SnapshotManifest pending) {
    hub.publish(
        EventType.EVENT_TYPE_SNAPSHOT_STARTED,
        pending.getSnapshotId(),
        null,
        "started ("
            + pending
                .getTrigger()
                .name()
                .replace("SNAPSHOT_TRIGGER_", "")
                .toLowerCase(java.util.Locale.ROOT)
            + ") with initiators "
            + pending.getInitiatorsList(),
        0);
  }

  @Override
  public void completed(CompletedSnapshot snapshot) {
    SnapshotManifest m = snapshot.manifest();
    hub.publish(
        EventType.EVENT_TYPE_SNAPSHOT_COMPLETED,
        m.getSnapshotId(),
        null,
        "committed: "
            + m.getPiecesCount()
            + " workers, "
            + m.getTotalStateBytes()
            + " state bytes, "
            + m.getInFlightMessages()
            + " in-flight messages",
        m.getTimings().getTotalMicros());
  }

  @Override
  public void ended(
      SnapshotManifest m, FailureReason reason, Duration duration, boolean toleranceExceeded) {
    EventType type =
        m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_FAILED
            ? EventType.EVENT_TYPE_SNAPSHOT_FAILED
            : EventType.EVENT_TYPE_SNAPSHOT_ABORTED;
    String text = reason.name().toLowerCase(java.util.Locale.ROOT) + ": " + m.getReason();
    if (toleranceExceeded) {
      text += " [consecutive failures exceed the tolerable number]";
    }
    hub.publish(type, m.getSnapshotId(), null, text, duration.toNanos() / 1000);
  }
}
