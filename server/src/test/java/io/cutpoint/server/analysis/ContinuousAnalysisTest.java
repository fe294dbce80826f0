package io.cutpoint.server.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.cutpoint.api.v1.Activity;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.server.lifecycle.ExecutorScheduler;
import io.cutpoint.server.lifecycle.Scheduler;
import io.cutpoint.server.testing.ManualClock;
import io.cutpoint.server.testing.ManualScheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ContinuousAnalysisTest {

  private final InMemorySnapshotStore store = new InMemorySnapshotStore();
  private final Recorder recorder = new Recorder();

  /** Runs a task at once, on the caller's thread, whatever its delay. */
  private static final Scheduler DIRECT =
      (task, delay) -> {
        task.run();
        return () -> {};
      };

  private final ContinuousAnalysis continuous =
      new ContinuousAnalysis(
          new SnapshotAnalyzer(store), DIRECT, Clock.systemUTC(), Duration.ZERO, recorder);
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(ContinuousAnalysis.class);

  @BeforeEach
  void captureLog() {
    log.start();
    logger.addAppender(log);
  }

  @AfterEach
  void release() {
    logger.detachAppender(log);
    log.stop();
    store.close();
  }

  private long deadlocked() {
    return new StoredCutWriter()
        .worker("a", Activity.ACTIVITY_PASSIVE, 0, "b")
        .worker("b", Activity.ACTIVITY_PASSIVE, 0, "a")
        .worker("c", Activity.ACTIVITY_ACTIVE, 0)
        .channel("c", "a")
        .commit(store);
  }

  private long running() {
    return new StoredCutWriter()
        .worker("a", Activity.ACTIVITY_ACTIVE, 0)
        .worker("b", Activity.ACTIVITY_PASSIVE, 0, "a")
        .worker("c", Activity.ACTIVITY_ACTIVE, 0)
        .channel("c", "a", 4)
        .commit(store);
  }

  private long terminated() {
    return new StoredCutWriter()
        .worker("a", Activity.ACTIVITY_PASSIVE, 0)
        .worker("b", Activity.ACTIVITY_PASSIVE, 0)
        .channel("a", "b")
        .commit(store);
  }

  @Test
  void aDeadlockIsReportedAndLoggedOnceWhileItLasts() {
    long first = deadlocked();
    long second = deadlocked();

    continuous.snapshotCommitted(first);
    continuous.snapshotCommitted(second);

    assertThat(recorder.events).containsExactly("deadlock " + first + " [a, b]");
    assertThat(log.list)
        .filteredOn(e -> e.getLevel() == Level.WARN)
        .singleElement()
        .extracting(ILoggingEvent::getFormattedMessage)
        .asString()
        .contains("snapshot " + first, "deadlock among [a, b]", "a -> b -> a");
  }

  @Test
  void aDeadlockThatGoesAwayIsClearedAndReportedAgainIfItComesBack() {
    long one = deadlocked();
    long two = running();
    long three = deadlocked();

    continuous.snapshotCommitted(one);
    continuous.snapshotCommitted(two);
    continuous.snapshotCommitted(three);

    assertThat(recorder.events)
        .containsExactly(
            "deadlock " + one + " [a, b]",
            "cleared " + two + " [a, b]",
            "deadlock " + three + " [a, b]");
  }

  @Test
  void terminationIsReportedWhenItIsFirstSeen() {
    long one = running();
    long two = terminated();
    long three = terminated();

    continuous.snapshotCommitted(one);
    continuous.snapshotCommitted(two);
    continuous.snapshotCommitted(three);

    assertThat(recorder.events).containsExactly("terminated " + two);
    assertThat(recorder.analyzed).containsExactly(one, two, three);
  }

  @Test
  void aSnapshotOlderThanTheNewestAnalyzedIsSkipped() {
    long older = deadlocked();
    long newer = running();

    assertThat(continuous.analyzeNow(newer)).isTrue();
    assertThat(continuous.analyzeNow(older)).isFalse();

    assertThat(recorder.events).isEmpty();
    assertThat(recorder.analyzed).containsExactly(newer);
  }

  @Test
  void aCorruptSnapshotIsReportedAsFailedAndTheNextOneIsStillAnalyzed() {
    long bad = running();
    store.corruptChannel(bad, ChannelId.of("c", "a")); // it holds messages: the analysis reads it
    long good = deadlocked();

    continuous.snapshotCommitted(bad);
    continuous.snapshotCommitted(good);

    assertThat(recorder.events)
        .containsExactly("failed " + bad + " CorruptionException", "deadlock " + good + " [a, b]");
  }

  @Test
  void theAnalysisRunsOnTheGivenSchedulerNotOnTheCommitThread() {
    try (ExecutorScheduler maintenance = new ExecutorScheduler("test-maintenance")) {
      ContinuousAnalysis async =
          new ContinuousAnalysis(
              new SnapshotAnalyzer(store),
              maintenance,
              Clock.systemUTC(),
              Duration.ofMillis(250),
              recorder);
      long id = deadlocked();

      async.snapshotCommitted(id);

      await().atMost(Duration.ofSeconds(10)).until(() -> recorder.events.size() == 1);
      assertThat(recorder.events).containsExactly("deadlock " + id + " [a, b]");
      assertThat(recorder.threads).containsOnly("test-maintenance");
    }
  }

  @Test
  void aClosedSchedulerLeavesCommittedSnapshotsQuietlyUnanalyzed() {
    ExecutorScheduler maintenance = new ExecutorScheduler("test-maintenance");
    maintenance.close();
    ContinuousAnalysis async =
        new ContinuousAnalysis(
            new SnapshotAnalyzer(store), maintenance, Clock.systemUTC(), Duration.ZERO, recorder);

    async.snapshotCommitted(deadlocked());

    assertThat(recorder.events).isEmpty();
  }

  /**
   * Commits that come faster than the spacing are analyzed as one, the newest: the deadlock it
   * shows is reported by it, and the snapshots in between are not read.
   */
  @Test
  void commitsFasterThanTheSpacingAreAnalyzedTogetherByTheNewest() {
    ManualClock clock = new ManualClock();
    ManualScheduler maintenance = new ManualScheduler(clock);
    ContinuousAnalysis spaced =
        new ContinuousAnalysis(
            new SnapshotAnalyzer(store), maintenance, clock, Duration.ofMillis(250), recorder);
    long one = running();
    spaced.snapshotCommitted(one);
    maintenance.runDue();
    assertThat(recorder.analyzed).containsExactly(one);

    long two = running();
    long three = deadlocked();
    maintenance.advance(Duration.ofMillis(100));
    spaced.snapshotCommitted(two);
    spaced.snapshotCommitted(three);
    maintenance.advance(Duration.ofMillis(100));
    assertThat(recorder.analyzed).as("within the spacing").containsExactly(one);
    maintenance.advance(Duration.ofMillis(50));

    assertThat(recorder.analyzed).containsExactly(one, three);
    assertThat(recorder.events).containsExactly("deadlock " + three + " [a, b]");
  }

  /** Records listener calls in order, as short strings. */
  static final class Recorder implements ContinuousAnalysis.Listener {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<Long> analyzed = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();

    @Override
    public void deadlockDetected(long snapshotId, Deadlock deadlock) {
      threads.add(Thread.currentThread().getName());
      events.add("deadlock " + snapshotId + " " + deadlock.core());
    }

    @Override
    public void deadlockCleared(long snapshotId, java.util.SortedSet<String> core) {
      events.add("cleared " + snapshotId + " " + core);
    }

    @Override
    public void terminationDetected(long snapshotId, TerminationVerdict verdict) {
      events.add("terminated " + snapshotId);
    }

    @Override
    public void analyzed(long snapshotId, CutAnalysis analysis) {
      analyzed.add(snapshotId);
    }

    @Override
    public void analysisFailed(long snapshotId, RuntimeException error) {
      events.add("failed " + snapshotId + " " + error.getClass().getSimpleName());
    }
  }
}
