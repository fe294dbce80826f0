package io.cutpoint.client.session;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's side of leader fencing: it keeps the highest leader term any coordinator message
 * carried and refuses a message of an older one, which can only come from a leader that was
 * replaced (paused, partitioned, not yet aware). Term 0 means a coordinator without high
 * availability and is always admitted.
 *
 * <p>A refusal is logged at WARN and counted: {@link #refused()}, and the counter {@code
 * cutpoint.worker.commands.refused{reason="old_term"}} in Micrometer's global registry (add the
 * application's registry to it to publish it).
 *
 * <p>Thread-safe.
 */
final class TermFence {
  private static final Logger log = LoggerFactory.getLogger(TermFence.class);

  private final String workerId;
  private final AtomicLong highest = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  TermFence(String workerId) {
    this.workerId = workerId;
  }

  /**
   * True if a message of leader term {@code term} may be acted on; false (logged and counted) if a
   * newer term was seen before.
   *
   * @param what the message's kind, for the log
   */
  boolean admit(long term, Object what) {
    if (term == 0) {
      return true;
    }
    long seen = highest.accumulateAndGet(term, Math::max);
    if (term < seen) {
      refused.incrementAndGet();
      io.micrometer.core.instrument.Metrics.counter(
              "cutpoint.worker.commands.refused", "reason", "old_term")
          .increment();
      log.warn(
          "worker {}: refused {} of leader term {}: a leader of term {} took over",
          workerId,
          what,
          term,
          seen);
      return false;
    }
    return true;
  }

  /** The highest leader term seen, 0 before any. */
  long highest() {
    return highest.get();
  }

  /** Messages refused because their term was older. */
  long refused() {
    return refused.get();
  }
}
