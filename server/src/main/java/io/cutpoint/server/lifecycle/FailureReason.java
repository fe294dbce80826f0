package io.cutpoint.server.lifecycle;

/** Why a snapshot did not complete. */
public enum FailureReason {
  /** Still pending when the snapshot timeout passed. */
  TIMEOUT,
  /** A worker of the snapshot lost its session. */
  WORKER_LOST,
  /** A worker of the snapshot rejoined with different channels. */
  TOPOLOGY_CHANGED,
  /** A worker gave up its local snapshot (e.g. its recording limit). */
  LOCAL_FAILURE,
  /** Every piece arrived but the cut failed verification. */
  CUT_INVALID,
  /** The store could not write the snapshot. */
  STORE_ERROR,
  /** Aborted by the coordinator itself (shutdown, rollback). */
  COORDINATOR,
  /** Aborted by an operator ({@code AbortSnapshot}). */
  OPERATOR
}
