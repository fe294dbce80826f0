package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.cut.LocalSnapshot;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@link Worker#fresh()}: true from the start until the first welcome or successful restore. */
class WorkerFreshTest {

  private static Worker worker() {
    return Worker.builder("a")
        .incoming("b")
        .stateHandler(new NoState())
        .messageHandler((f, s, p) -> {})
        .build()
        .start();
  }

  private static LocalSnapshot piece(String worker) {
    return new LocalSnapshot(7, worker, new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), null);
  }

  @Test
  void aStartedWorkerIsFreshUntilACoordinatorWelcomesIt() {
    try (Worker a = worker()) {
      assertThat(a.fresh()).isTrue();
      a.halt(2);
      a.resume(2); // moving to the cluster's epoch is not a restore: the state is still initial
      assertThat(a.fresh()).isTrue();
      a.markJoined();
      assertThat(a.fresh()).isFalse();
    }
  }

  @Test
  void aRestoreEndsFreshnessButAFailedOneDoesNot() {
    try (Worker a = worker()) {
      a.halt(1);
      assertThatThrownBy(() -> a.restore(1, piece("z"), new byte[0]))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(a.fresh()).isTrue();
      a.restore(1, piece("a"), new byte[0]);
      assertThat(a.fresh()).isFalse();
    }
  }
}
