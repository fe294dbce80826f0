package io.cutpoint.server.lifecycle;

/**
 * Reaches the test-only switch of {@link SnapshotLifecycle} from other packages' tests (the seeded
 * simulator's broken variants). Never used by production code.
 */
public final class BrokenLifecycle {

  private BrokenLifecycle() {}

  /** {@code lifecycle} verifies and commits a snapshot once every piece but one arrived. */
  public static void commitBeforeLastPiece(SnapshotLifecycle lifecycle) {
    lifecycle.breakForTest(SnapshotLifecycle.Broken.COMMIT_BEFORE_LAST_PIECE);
  }
}
