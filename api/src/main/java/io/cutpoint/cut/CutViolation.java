package io.cutpoint.cut;

/**
 * One failed check of a cut.
 *
 * @param channel the channel concerned, or {@code null} for a worker-level problem
 * @param workerId the worker concerned, or {@code null}
 * @param message what is wrong, with the numbers involved
 */
public record CutViolation(ChannelId channel, String workerId, String message) {

  public static CutViolation onChannel(ChannelId channel, String message) {
    return new CutViolation(channel, null, message);
  }

  public static CutViolation onWorker(String workerId, String message) {
    return new CutViolation(null, workerId, message);
  }

  @Override
  public String toString() {
    String where = channel != null ? channel.toString() : "worker " + workerId;
    return where + ": " + message;
  }
}
