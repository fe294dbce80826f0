package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The gate holds a worker's frame requests while a handler's send has a channel past its bound,
 * sends them once every channel has room, and at the latest after the longest hold.
 */
class ReadGateTest {

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

  /** Tasks the gate posts to its loop; the test runs them, as the loop would. */
  private final Queue<Runnable> posted = new ConcurrentLinkedQueue<>();

  private final ChannelSender toC = sender("c");
  private final ChannelSender toD = sender("d");

  @AfterEach
  void stopTimer() {
    timer.shutdownNow();
  }

  @Test
  void requestsWaitWhileAChannelIsPastItsBoundAndGoOutWhenAllHaveRoom() {
    ReadGate gate = new ReadGate(posted::add, () -> timer, Duration.ofMinutes(5));
    RecordingAckObserver a = new RecordingAckObserver();
    InboundStream fromA = a.stream();

    gate.request(fromA, 8);
    assertThat(a.requested).as("requested with every channel in bounds").isEqualTo(8);

    gate.overdrawn(toC, true);
    gate.overdrawn(toD, true);
    gate.request(fromA, 1);
    gate.request(fromA, 1);
    gate.overdrawn(toC, false);
    runPosted();
    assertThat(a.requested).as("requested while d is still past its bound").isEqualTo(8);

    gate.overdrawn(toD, false);
    runPosted();
    assertThat(a.requested).as("requested once every channel has room").isEqualTo(10);
  }

  @Test
  void heldRequestsGoOutAfterTheLongestHoldEvenWhileAChannelStaysPastItsBound() {
    ReadGate gate = new ReadGate(posted::add, () -> timer, Duration.ofMillis(50));
    RecordingAckObserver a = new RecordingAckObserver();
    InboundStream fromA = a.stream();

    gate.overdrawn(toC, true);
    gate.request(fromA, 1);
    assertThat(a.requested).isZero();
    await().atMost(Duration.ofSeconds(5)).until(() -> !posted.isEmpty());
    runPosted();
    assertThat(a.requested).as("requested after the longest hold").isEqualTo(1);
  }

  /**
   * Reading resumes after the longest hold, and stays resumed while the same channel stays past its
   * bound (its peer is gone, and sends to it fail by then): held again for a whole hold, the worker
   * read its other channels one batch per send timeout.
   */
  @Test
  void afterTheLongestHoldRequestsAreNoLongerHeldWhileTheSameChannelStaysPastItsBound() {
    ReadGate gate = new ReadGate(posted::add, () -> timer, Duration.ofMillis(50));
    RecordingAckObserver a = new RecordingAckObserver();
    InboundStream fromA = a.stream();

    gate.overdrawn(toC, true);
    gate.request(fromA, 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> !posted.isEmpty());
    runPosted();
    assertThat(a.requested).isEqualTo(1);

    gate.request(fromA, 1); // the frame was delivered: the next request
    assertThat(a.requested).as("requested at once once the hold expired").isEqualTo(2);
  }

  private void runPosted() {
    for (Runnable r; (r = posted.poll()) != null; ) {
      r.run();
    }
  }

  private static ChannelSender sender(String to) {
    return new ChannelSender("b", to, 0, ChannelOptions.defaults(), new UnusedHooks());
  }

  /** A sender here is only a name for the gate: nothing is sent. */
  private static final class UnusedHooks implements ChannelSender.Hooks {
    @Override
    public boolean inLoop() {
      return true;
    }

    @Override
    public void flushWhenIdle(ChannelSender sender) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledExecutorService timer() {
      throw new UnsupportedOperationException();
    }

    @Override
    public ManagedChannel newChannel(String address) {
      throw new UnsupportedOperationException();
    }

    @Override
    public WorkerMetrics metrics() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void claimed(ChannelSender sender) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void overdrawn(ChannelSender sender, boolean over) {
      throw new UnsupportedOperationException();
    }
  }
}
