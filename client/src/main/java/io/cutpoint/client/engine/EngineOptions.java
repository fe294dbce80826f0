package io.cutpoint.client.engine;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Tuning of a {@link SnapshotEngine}.
 *
 * @param maxRecordedBytesPerSnapshot payload bytes one snapshot may record over all incoming
 *     channels of this worker; past it the snapshot fails locally ({@link EngineOutput#failed})
 * @param recentSnapshotMemory how many completed, failed or aborted snapshot ids the engine
 *     remembers, so that late markers of them are ignored instead of starting a new recording
 * @param nanoClock monotonic clock, in nanoseconds, used only to time recordings
 */
public record EngineOptions(
    long maxRecordedBytesPerSnapshot, int recentSnapshotMemory, LongSupplier nanoClock) {

  /** 256 MiB of recorded payload per snapshot. */
  public static final long DEFAULT_MAX_RECORDED_BYTES = 256L << 20;

  /** Remembers the last 1024 finished snapshot ids. */
  public static final int DEFAULT_RECENT_SNAPSHOT_MEMORY = 1024;

  public EngineOptions {
    if (maxRecordedBytesPerSnapshot < 0) {
      throw new IllegalArgumentException(
          "maxRecordedBytesPerSnapshot must be >= 0, got " + maxRecordedBytesPerSnapshot);
    }
    if (recentSnapshotMemory < 1) {
      throw new IllegalArgumentException(
          "recentSnapshotMemory must be >= 1, got " + recentSnapshotMemory);
    }
    Objects.requireNonNull(nanoClock, "nanoClock");
  }

  /** 256 MiB per snapshot, 1024 remembered ids, {@link System#nanoTime()}. */
  public static EngineOptions defaults() {
    return new EngineOptions(
        DEFAULT_MAX_RECORDED_BYTES, DEFAULT_RECENT_SNAPSHOT_MEMORY, System::nanoTime);
  }

  public EngineOptions withMaxRecordedBytesPerSnapshot(long bytes) {
    return new EngineOptions(bytes, recentSnapshotMemory, nanoClock);
  }

  public EngineOptions withRecentSnapshotMemory(int ids) {
    return new EngineOptions(maxRecordedBytesPerSnapshot, ids, nanoClock);
  }

  public EngineOptions withNanoClock(LongSupplier clock) {
    return new EngineOptions(maxRecordedBytesPerSnapshot, recentSnapshotMemory, clock);
  }
}
