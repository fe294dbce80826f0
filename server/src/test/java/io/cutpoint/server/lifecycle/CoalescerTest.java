package io.cutpoint.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.server.testing.ManualClock;
import io.cutpoint.server.testing.ManualScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CoalescerTest {

  private static final Duration SPACING = Duration.ofMillis(250);

  private final ManualClock clock = new ManualClock();
  private final ManualScheduler scheduler = new ManualScheduler(clock);
  private final List<Instant> runs = new ArrayList<>();
  private final Coalescer coalescer =
      new Coalescer(scheduler, clock, SPACING, () -> runs.add(clock.instant()));

  @Test
  void theFirstRequestRunsAtOnce() {
    Instant t0 = clock.instant();

    coalescer.request();
    scheduler.runDue();

    assertThat(runs).containsExactly(t0);
  }

  @Test
  void requestsWhileARunWaitsForItsTurnAreFoldedIntoIt() {
    Instant t0 = clock.instant();
    coalescer.request();
    scheduler.runDue();

    scheduler.advance(Duration.ofMillis(50));
    coalescer.request();
    scheduler.advance(Duration.ofMillis(50));
    coalescer.request();
    coalescer.request();
    assertThat(scheduler.scheduled()).isEqualTo(1);
    scheduler.advance(Duration.ofSeconds(5));

    assertThat(runs).containsExactly(t0, t0.plus(SPACING));
  }

  private Coalescer self; // one whose task makes a request of it

  @Test
  void aRequestMadeDuringARunGetsARunAfterIt() {
    Instant t0 = clock.instant();
    int[] calls = {0};
    self =
        new Coalescer(
            scheduler,
            clock,
            SPACING,
            () -> {
              runs.add(clock.instant());
              if (calls[0]++ == 0) {
                self.request(); // a commit while the run reads: it may have read before it
              }
            });

    self.request();
    scheduler.advance(Duration.ofSeconds(5));

    assertThat(runs).containsExactly(t0, t0.plus(SPACING));
  }

  @Test
  void aRequestAfterAQuietSpellRunsAtOnce() {
    coalescer.request();
    scheduler.runDue();
    scheduler.advance(Duration.ofSeconds(10));
    Instant later = clock.instant();

    coalescer.request();
    scheduler.runDue();

    assertThat(runs).hasSize(2).endsWith(later);
  }

  @Test
  void aWallClockSteppedBackHoldsARunNoLongerThanTheSpacing() {
    coalescer.request();
    scheduler.runDue();
    clock.advance(Duration.ofHours(-1)); // an operator, or NTP, sets the clock back
    Instant stepped = clock.instant();

    coalescer.request();
    scheduler.advance(SPACING);

    assertThat(runs).hasSize(2).endsWith(stepped.plus(SPACING));
  }

  /**
   * Over random requests: runs begin at least the spacing apart, there are never more runs than
   * requests, and every request is followed by a run that begins no earlier than it was made.
   */
  @Test
  void everyRequestIsCoveredByARunThatBeginsAfterItAndRunsAreSpacedApart() {
    for (long seed = 1; seed <= 50; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      runs.clear();
      List<Instant> requests = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        scheduler.advance(Duration.ofMillis(random.nextInt(400)));
        int burst = 1 + random.nextInt(3);
        for (int j = 0; j < burst; j++) {
          requests.add(clock.instant());
          coalescer.request();
        }
      }
      scheduler.advance(Duration.ofSeconds(1));

      assertThat(runs.size()).as("seed %d", seed).isLessThanOrEqualTo(requests.size());
      for (int i = 1; i < runs.size(); i++) {
        assertThat(Duration.between(runs.get(i - 1), runs.get(i)))
            .as("seed %d, runs %d and %d", seed, i - 1, i)
            .isGreaterThanOrEqualTo(SPACING);
      }
      Instant lastRun = runs.get(runs.size() - 1);
      for (Instant r : requests) {
        assertThat(lastRun)
            .as("seed %d: a run after the request at %s", seed, r)
            .isAfterOrEqualTo(r);
      }
      int next = 0;
      for (Instant r : requests) {
        while (runs.get(next).isBefore(r)) {
          next++;
        }
        assertThat(Duration.between(r, runs.get(next)))
            .as("seed %d: the request at %s waits at most the spacing", seed, r)
            .isLessThanOrEqualTo(SPACING);
      }
    }
  }
}
