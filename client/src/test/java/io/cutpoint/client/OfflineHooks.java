package io.cutpoint.client;

import io.grpc.ManagedChannel;
import java.util.concurrent.ScheduledExecutorService;

/** Hooks of a sender that never connects: what it is handed stays buffered. */
final class OfflineHooks implements ChannelSender.Hooks {
  private final WorkerMetrics metrics;

  OfflineHooks(WorkerMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public boolean inLoop() {
    return true;
  }

  @Override
  public void flushWhenIdle(ChannelSender sender) {}

  @Override
  public ScheduledExecutorService timer() {
    throw new UnsupportedOperationException("an offline sender schedules nothing");
  }

  @Override
  public ManagedChannel newChannel(String address) {
    throw new UnsupportedOperationException("an offline sender connects nowhere");
  }

  @Override
  public WorkerMetrics metrics() {
    return metrics;
  }

  @Override
  public void claimed(ChannelSender sender) {
    throw new UnsupportedOperationException("no application thread sends here");
  }

  @Override
  public void overdrawn(ChannelSender sender, boolean over) {
    throw new UnsupportedOperationException("no handler sends here");
  }
}
