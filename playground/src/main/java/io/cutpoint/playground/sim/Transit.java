package io.cutpoint.playground.sim;

/**
 * A data message or a marker on its way over channel {@code from -> to}.
 *
 * @param order global send order, which breaks ties between equal arrival times
 * @param seq the data message's sequence number on its channel (0 for a marker)
 * @param amount money carried by a data message (0 for a marker)
 * @param snapshotId the marker's snapshot (0 for a data message)
 * @param sentCount the marker's sender count, or -1 when the channel is not FIFO (unknown)
 * @param replay whether a rollback put this message back on its channel
 */
public record Transit(
    long order,
    String from,
    String to,
    boolean marker,
    long seq,
    int amount,
    long snapshotId,
    long sentCount,
    long sentAt,
    long arriveAt,
    boolean replay) {

  static int byArrival(Transit a, Transit b) {
    int c = Long.compare(a.arriveAt, b.arriveAt);
    return c != 0 ? c : Long.compare(a.order, b.order);
  }
}
