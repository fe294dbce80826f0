package io.cutpoint.server.sim;

import io.cutpoint.client.sim.SimNetwork;
import io.cutpoint.server.lifecycle.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.Consumer;

/**
 * The coordinator loop and clock of the seeded simulator: timers and posted events go into the
 * simulation's one event queue ({@link SimNetwork}), and time is its tick count (one tick is a
 * millisecond of the clock). A coordinator restart starts a new generation: whatever the old
 * coordinator had scheduled or posted never runs.
 */
final class SimLoop implements Scheduler {

  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private final SimNetwork network;
  private final Clock clock =
      new Clock() {
        @Override
        public Instant instant() {
          return START.plusMillis(network.now());
        }

        @Override
        public ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
          return this;
        }
      };

  private int generation;

  /** Runs each task of the coordinator; {@link ScaleCurve} counts their CPU time around them. */
  private Consumer<Runnable> around = Runnable::run;

  SimLoop(SimNetwork network) {
    this.network = network;
  }

  Clock clock() {
    return clock;
  }

  long now() {
    return network.now();
  }

  int generation() {
    return generation;
  }

  /** Every task of the coordinator runs through {@code around} from now on. */
  void around(Consumer<Runnable> around) {
    this.around = around;
  }

  /** Runs {@code task} as the coordinator's work (an event arriving at it). */
  void run(Runnable task) {
    around.accept(task);
  }

  /** A coordinator restart: the tasks of the coordinator that ran until now are dropped. */
  void nextGeneration() {
    generation++;
  }

  @Override
  public Cancellable schedule(Runnable task, Duration delay) {
    boolean[] cancelled = new boolean[1];
    at(
        network.now() + Math.max(0, delay.toMillis()),
        generation,
        () -> {
          if (!cancelled[0]) {
            task.run();
          }
        });
    return () -> cancelled[0] = true;
  }

  /**
   * Runs {@code task} at tick {@code time} if the coordinator of generation {@code gen} still runs.
   */
  void at(long time, int gen, Runnable task) {
    network.at(
        time,
        () -> {
          if (gen == generation) {
            around.accept(task);
          }
        });
  }
}
