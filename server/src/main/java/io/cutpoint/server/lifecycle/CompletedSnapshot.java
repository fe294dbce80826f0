package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import java.time.Duration;

/**
 * A snapshot that was verified and committed. Unlike a {@link PendingSnapshot} it is immutable and
 * holds nothing but its committed manifest.
 *
 * @param manifest the committed manifest (status COMPLETE)
 * @param markers markers sent: one per channel of the topology
 */
public record CompletedSnapshot(SnapshotManifest manifest, int markers) {

  public CompletedSnapshot {
    if (manifest.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      throw new IllegalArgumentException("not a complete manifest: " + manifest.getStatus());
    }
  }

  public long id() {
    return manifest.getSnapshotId();
  }

  public Duration duration() {
    return Duration.ofNanos(manifest.getTimings().getTotalMicros() * 1000);
  }
}
