package io.cutpoint.server;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.NoSuchSnapshotException;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the health status true to the store. While the store cannot write (an I/O error such as a
 * full disk), health is NOT_SERVING, the reason is logged, the pending snapshots are aborted (they
 * could not be committed) and every later check tries {@link SnapshotStore#resume()}; once the
 * store writes again, the ends of snapshots that it could not write are written and health is
 * SERVING. {@link #scrub()} verifies every COMPLETE snapshot, so that the damaged ones are known
 * (listed as damaged, skipped by an automatic rollback) soon after start. Runs on the maintenance
 * executor, one call at a time.
 */
final class StoreWatch {
  private static final Logger log = LoggerFactory.getLogger(StoreWatch.class);

  private final SnapshotStore store;
  private final HealthStatusManager health;
  private final Consumer<String> abortPending;
  private final Runnable writable;
  private volatile String unavailable;

  /** The health names that follow the store: the whole server ({@code ""}) and each service. */
  static final java.util.List<String> HEALTH_NAMES =
      java.util.List.of(
          HealthStatusManager.SERVICE_NAME_ALL_SERVICES,
          CoordinatorGrpc.SERVICE_NAME,
          AdminGrpc.SERVICE_NAME);

  /** Sets every name of {@link #HEALTH_NAMES} to {@code status}. */
  static void setAll(HealthStatusManager health, ServingStatus status) {
    HEALTH_NAMES.forEach(name -> health.setStatus(name, status));
  }

  /**
   * @param abortPending aborts the pending snapshots, with the reason
   * @param writable told each time the store writes again (the ends it could not write are due)
   */
  StoreWatch(
      SnapshotStore store,
      HealthStatusManager health,
      Consumer<String> abortPending,
      Runnable writable) {
    this.store = store;
    this.health = health;
    this.abortPending = abortPending;
    this.writable = writable;
  }

  /** Why the store cannot write, as last seen, or empty. */
  Optional<String> unavailable() {
    return Optional.ofNullable(unavailable);
  }

  void check() {
    Optional<String> why = store.unavailable();
    if (why.isEmpty()) {
      if (unavailable != null) {
        unavailable = null;
        writable.run();
        setAll(health, ServingStatus.SERVING);
        log.info("the snapshot store writes again: SERVING");
      }
      return;
    }
    if (unavailable == null) {
      unavailable = why.get();
      setAll(health, ServingStatus.NOT_SERVING);
      log.error("the snapshot store cannot write: NOT_SERVING until it can ({})", unavailable);
      abortPending.accept("the snapshot store cannot write: " + unavailable);
      return; // the aborts are posted to the loop: try to resume from the next check on
    }
    boolean resumed;
    try {
      resumed = store.resume();
    } catch (StoreException e) {
      log.warn("the snapshot store cannot resume writing: {}", e.getMessage());
      return;
    }
    if (resumed) {
      check();
    }
  }

  /** Verifies every COMPLETE snapshot; the store remembers the damaged ones. */
  void scrub() {
    int damaged = 0;
    int checked = 0;
    try {
      for (SnapshotManifest m : store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE))) {
        checked++;
        try {
          store.verifyIntegrity(m.getSnapshotId());
        } catch (NoSuchSnapshotException e) {
          checked--; // deleted since the list was read (retention): nothing to check
        } catch (CorruptionException e) {
          damaged++;
          log.error(
              "snapshot {} is damaged and cannot be restored: {}",
              m.getSnapshotId(),
              e.getMessage());
        }
      }
    } catch (StoreException e) {
      log.error("verifying the stored snapshots failed", e);
    }
    if (damaged > 0) {
      log.error(
          "{} of {} complete snapshots are damaged; run `cutpoint store check` with the"
              + " coordinator stopped for the details",
          damaged,
          checked);
    }
  }
}
