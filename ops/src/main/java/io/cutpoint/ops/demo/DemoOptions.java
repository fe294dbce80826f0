package io.cutpoint.ops.demo;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of one demo run.
 *
 * @param connect coordinators to join ({@code host:port}; several: the workers follow their
 *     leader); null runs embedded ones
 * @param dataDir store of the embedded coordinator; null uses a temporary directory deleted at exit
 * @param ratePerWorker transfers per second each worker attempts
 * @param ha embedded coordinators of one highly available cluster, whose leader is killed every
 *     {@code crashEvery} instead of a worker; 0 = one plain embedded coordinator
 */
public record DemoOptions(
    int workers,
    Topologies.Kind topology,
    Duration interval,
    Duration duration,
    Duration crashEvery,
    long seed,
    java.util.List<String> connect,
    Path dataDir,
    long initialBalance,
    int ratePerWorker,
    int maxAmount,
    int ha) {

  public DemoOptions {
    if (workers < 2) {
      throw new IllegalArgumentException("--workers must be at least 2, got " + workers);
    }
    if (duration.isZero() || duration.isNegative()) {
      throw new IllegalArgumentException("--duration must be more than 0");
    }
    if (ratePerWorker < 1) {
      throw new IllegalArgumentException("--rate must be at least 1, got " + ratePerWorker);
    }
    if (ha != 0 && (ha < HaDemo.MIN_NODES || ha > HaDemo.MAX_NODES)) {
      throw new IllegalArgumentException(
          "--ha must be "
              + HaDemo.MIN_NODES
              + ".."
              + HaDemo.MAX_NODES
              + " coordinators, got "
              + ha);
    }
    if (ha != 0 && connect != null) {
      throw new IllegalArgumentException(
          "--ha runs its own coordinators; it cannot be combined with --connect or --coordinators");
    }
    if (initialBalance < 1) {
      throw new IllegalArgumentException("--balance must be at least 1, got " + initialBalance);
    }
  }

  public long expectedTotal() {
    return workers * initialBalance;
  }
}
