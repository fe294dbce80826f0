package io.cutpoint.client;

import io.cutpoint.client.engine.EngineOptions;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

/**
 * The worker core the core's unit tests drive: worker {@code b} with one channel to and one from
 * {@code a}, no state, markers taken in order, a clock that stands still.
 */
final class TwoWayCore {

  private TwoWayCore() {}

  /** Core {@code b} in {@code epoch}, handing the messages it delivers to {@code handler}. */
  static WorkerCore of(MessageHandler handler, long epoch) {
    return of(new NoState(), handler, epoch);
  }

  /** The same, with the application's state kept by {@code state}. */
  static WorkerCore of(StateHandler state, MessageHandler handler, long epoch) {
    return new WorkerCore(
        "b",
        new TreeSet<>(List.of("a")),
        new TreeSet<>(List.of("a")),
        state,
        handler,
        new WorkerMetrics(null),
        EngineOptions.defaults().withNanoClock(() -> 0),
        8,
        false,
        new ParkingLimits(64, 1 << 20, Duration.ofSeconds(30)),
        epoch);
  }
}
