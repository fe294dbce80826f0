package io.cutpoint.server.sim;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Silences the coordinator cores' log lines while many schedules run (each logs every snapshot and
 * rollback, a restarted coordinator each snapshot it ends, a worker core each frame it refuses),
 * and restores the levels after.
 */
final class QuietLogs implements AutoCloseable {

  private static final List<String> NAMES =
      List.of(
          "io.cutpoint.server.lifecycle",
          "io.cutpoint.server.rollback",
          "io.cutpoint.server.CoordinatorServer",
          "io.cutpoint.client.WorkerCore");

  private final List<Level> before;

  QuietLogs() {
    before = NAMES.stream().map(n -> logger(n).getLevel()).toList();
    NAMES.forEach(n -> logger(n).setLevel(Level.OFF));
  }

  private static Logger logger(String name) {
    return (Logger) LoggerFactory.getLogger(name);
  }

  @Override
  public void close() {
    for (int i = 0; i < NAMES.size(); i++) {
      logger(NAMES.get(i)).setLevel(before.get(i));
    }
  }
}
