package io.cutpoint.server.lifecycle;

import java.util.Optional;

/**
 * Remembers why the periodic snapshots cannot start, and tells when that changes, so that a
 * coordinator reports a block once per change of reason instead of once per period. Pure; {@link
 * #observe} runs on one thread (the coordinator loop), {@link #current} on any.
 */
public final class BlockedSnapshots {

  /**
   * The reason changed.
   *
   * @param now the block from now on; null when snapshots start again
   * @param before the block until now; null when they started until now
   */
  public record Change(SnapshotBlock now, SnapshotBlock before) {}

  private volatile SnapshotBlock current;

  /**
   * Records the outcome of one periodic attempt: {@code block} when it could not start because of
   * the state of the cluster, null when it started (or was refused for a cause that passes by
   * itself). Answers the change to report, if the reason differs from the last one.
   */
  public Optional<Change> observe(SnapshotBlock block) {
    SnapshotBlock before = current;
    current = block;
    SnapshotBlock.Reason was = before == null ? null : before.reason();
    SnapshotBlock.Reason is = block == null ? null : block.reason();
    return was == is ? Optional.empty() : Optional.of(new Change(block, before));
  }

  /** The block of the last periodic attempt, if it was blocked. */
  public Optional<SnapshotBlock> current() {
    return Optional.ofNullable(current);
  }
}
