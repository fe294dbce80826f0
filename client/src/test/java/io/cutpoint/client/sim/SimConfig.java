package io.cutpoint.client.sim;

/**
 * Size and pace of one simulated schedule. Times are abstract ticks.
 *
 * @param transfers application sends scheduled at random times in {@code [0, horizon)}
 * @param snapshots snapshots started at random times in {@code [0, horizon)}; they overlap
 * @param maxChosenInitiators initiators drawn at random per snapshot (1..this), before more are
 *     added so that every worker is reachable
 * @param horizon length of the busy period
 * @param maxDelay a channel delivers an item after 1..maxDelay ticks (never overtaking: FIFO)
 * @param maxInitiationSkew each initiator gets its start command 0..this ticks after the others
 * @param forwardPercent chance that a worker forwards part of a deposit at once, from its delivery
 *     handler (an application sending while it handles a message)
 * @param initialBalance every worker's starting balance
 * @param maxWorkers largest topology the kinds build
 * @param abortPercent chance that a snapshot is aborted (at every worker, each at a random time, as
 *     a coordinator does on a timeout); 0 in the defaults
 * @param rollbacks rollbacks at random times in the second half of the horizon, each to the newest
 *     snapshot complete at that moment; 0 in the defaults
 */
public record SimConfig(
    int transfers,
    int snapshots,
    int maxChosenInitiators,
    long horizon,
    long maxDelay,
    long maxInitiationSkew,
    int forwardPercent,
    long initialBalance,
    int maxWorkers,
    int abortPercent,
    int rollbacks) {

  public static SimConfig defaults() {
    return new SimConfig(60, 4, 2, 100, 30, 20, 20, 1_000, 6, 0, 0);
  }

  public SimConfig withTransfers(int n) {
    return new SimConfig(
        n,
        snapshots,
        maxChosenInitiators,
        horizon,
        maxDelay,
        maxInitiationSkew,
        forwardPercent,
        initialBalance,
        maxWorkers,
        abortPercent,
        rollbacks);
  }

  public SimConfig withAbortPercent(int percent) {
    return new SimConfig(
        transfers,
        snapshots,
        maxChosenInitiators,
        horizon,
        maxDelay,
        maxInitiationSkew,
        forwardPercent,
        initialBalance,
        maxWorkers,
        percent,
        rollbacks);
  }

  public SimConfig withRollbacks(int n) {
    return new SimConfig(
        transfers,
        snapshots,
        maxChosenInitiators,
        horizon,
        maxDelay,
        maxInitiationSkew,
        forwardPercent,
        initialBalance,
        maxWorkers,
        abortPercent,
        n);
  }

  public SimConfig withSnapshots(int n) {
    return new SimConfig(
        transfers,
        n,
        maxChosenInitiators,
        horizon,
        maxDelay,
        maxInitiationSkew,
        forwardPercent,
        initialBalance,
        maxWorkers,
        abortPercent,
        rollbacks);
  }
}
