package io.cutpoint.client.sim;

/**
 * The faults of one worker-level schedule ({@code io.cutpoint.server.sim.Simulation}), at random
 * times in the busy period.
 *
 * @param reconnects streams broken: what is in flight on them is lost, the sender reopens and
 *     resends what was not acknowledged
 * @param resendBeforeAckPercent chance that a reopened stream resends before the receiver's first
 *     ack, so that the receiver gets positions it already delivered
 * @param crashPercent chance that a worker is lost and restarted with a fresh state (only once a
 *     cut is committed: the restart forces a rollback to it)
 * @param coordinatorRestartPercent chance that the coordinator is killed and started again over its
 *     store (its pending snapshots end ABORTED, a persisted rollback resumes, workers re-join)
 */
public record SimFaults(
    int reconnects, int resendBeforeAckPercent, int crashPercent, int coordinatorRestartPercent) {

  public static SimFaults defaults() {
    return new SimFaults(3, 50, 40, 40);
  }

  public static SimFaults none() {
    return new SimFaults(0, 0, 0, 0);
  }
}
