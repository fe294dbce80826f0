package io.cutpoint.server.lifecycle;

/**
 * Decides which snapshot failures count against the tolerable number of consecutive failures, and
 * when that number is exceeded. A complete snapshot resets the count. Failures caused by membership
 * (a lost worker, a topology change) or by the coordinator itself do not count: they are reported
 * on their own and say nothing about whether snapshots can succeed. Not thread-safe: the lifecycle
 * calls it under its lock.
 */
public final class FailurePolicy {

  private final int tolerable;
  private int consecutive;

  public FailurePolicy(int tolerableConsecutiveFailures) {
    if (tolerableConsecutiveFailures < 0) {
      throw new IllegalArgumentException("tolerable failures must be >= 0");
    }
    this.tolerable = tolerableConsecutiveFailures;
  }

  /** Whether a failure for {@code reason} counts toward the consecutive failures. */
  public static boolean counts(FailureReason reason) {
    return switch (reason) {
      case TIMEOUT, LOCAL_FAILURE, CUT_INVALID, STORE_ERROR -> true;
      case WORKER_LOST, TOPOLOGY_CHANGED, COORDINATOR, OPERATOR -> false;
    };
  }

  /**
   * Records a failure. Returns true when this failure makes the count exceed the tolerable number
   * (the caller raises an event and logs an error; it happens once per run of failures).
   */
  public boolean onFailure(FailureReason reason) {
    if (!counts(reason)) {
      return false;
    }
    consecutive++;
    return consecutive == tolerable + 1;
  }

  /** Records a complete snapshot: the run of failures ends. */
  public void onSuccess() {
    consecutive = 0;
  }

  public int consecutiveFailures() {
    return consecutive;
  }
}
