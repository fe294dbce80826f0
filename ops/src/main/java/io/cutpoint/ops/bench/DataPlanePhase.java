package io.cutpoint.ops.bench;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.DataMessage;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.client.ChannelOptions;
import io.cutpoint.client.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Item 3: messages per second through one Cutpoint channel {@code a -> b} (two workers, no
 * coordinator, sent from one application thread) and through a {@link RawChannel} stream that
 * batches as many items per frame as Cutpoint's channels do. Per payload size, in the order of
 * {@link Alternating#schedule} with the raw stream as A: one unmeasured window of each, then pairs
 * of windows in the order AB, BA, AB, ...; each pair gives one ratio, the row's ratio is their
 * median, with min and max.
 */
final class DataPlanePhase {

  /**
   * Rates for one payload size, over all measured windows of each side, the per-pair ratios, and
   * process CPU nanoseconds per received message of each side.
   */
  record Row(
      int payloadBytes,
      double cutpointRate,
      double rawRate,
      Samples ratios,
      double cutpointCpuNanosPerMessage,
      double rawCpuNanosPerMessage) {
    /** The median of the per-pair ratios Cutpoint / raw. */
    double ratio() {
      return ratios.p50();
    }

    /** Above 1.0 Cutpoint would beat the bare stream it adds work to: noise, not a result. */
    boolean noise() {
      return ratio() > 1.0;
    }
  }

  /** Items per raw frame: what a Cutpoint channel batches at most by default. */
  static final int RAW_ITEMS_PER_FRAME = ChannelOptions.defaults().maxItemsPerFrame();

  private DataPlanePhase() {}

  static List<Row> run(BenchPlan plan, Consumer<String> progress) {
    progress.accept("data plane: one channel vs raw gRPC stream");
    List<Row> rows = new ArrayList<>();
    BenchApp bApp = new BenchApp(0);
    BenchApp aApp = new BenchApp(0);
    try (Worker b =
            Worker.builder("b")
                .incoming("a")
                .stateHandler(bApp)
                .messageHandler(bApp)
                .markersAhead(plan.markersAhead())
                .build()
                .start();
        Worker a =
            Worker.builder("a")
                .outgoing("b")
                .stateHandler(aApp)
                .messageHandler(aApp)
                .peers(Map.of("b", b.channelAddress()))
                .build()
                .start();
        RawChannel raw = new RawChannel()) {
      a.send("b", new byte[1]); // the channel is connected once this arrives
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (bApp.received() < 1 && System.nanoTime() < deadline) {
        Pause.millis(1);
      }
      long window = plan.windowMillis();
      for (int size : plan.payloads()) {
        Sender cutpoint = cutpointSender(a, size);
        Sender bare = rawSender(raw, size);
        Alternating.Pairs p =
            Alternating.interleave(
                plan.dataplaneRounds(),
                (isCutpoint, warmUp) ->
                    isCutpoint
                        ? measure(window, bApp::received, cutpoint)
                        : measure(window, raw::items, bare));
        rows.add(
            new Row(
                size,
                Alternating.Pairs.rate(p.b()),
                Alternating.Pairs.rate(p.a()),
                p.ratios(),
                Alternating.Pairs.perMessage(p.b()),
                Alternating.Pairs.perMessage(p.a())));
      }
    }
    return rows;
  }

  /** A sending loop, run on its own thread until told to stop. */
  private interface Sender {
    void run(java.util.function.BooleanSupplier stop);
  }

  private static Sender cutpointSender(Worker a, int size) {
    byte[] payload = new byte[size];
    return stop -> {
      while (!stop.getAsBoolean()) {
        for (int i = 0; i < 256; i++) {
          a.send("b", payload);
        }
      }
    };
  }

  private static Sender rawSender(RawChannel raw, int size) {
    byte[] payload = new byte[size];
    return stop -> {
      try (RawChannel.Source source = raw.open()) {
        long position = 0;
        while (!stop.getAsBoolean()) {
          Frame.Builder f = Frame.newBuilder().setEpoch(1);
          for (int i = 0; i < RAW_ITEMS_PER_FRAME; i++) {
            position++;
            f.addItems(
                Item.newBuilder()
                    .setPosition(position)
                    .setData(
                        DataMessage.newBuilder()
                            .setSeq(position)
                            .setPayload(ByteString.copyFrom(payload))));
          }
          source.send(f);
        }
      }
    };
  }

  /**
   * Warms up for a fifth of the window, then counts receptions and the process's CPU time over the
   * window.
   */
  private static Alternating.Window measure(
      long windowMillis, LongSupplier received, Sender sender) {
    long warm = windowMillis / 5;
    long[] bounds = new long[2];
    Thread t =
        new Thread(
            () -> sender.run(() -> System.nanoTime() > bounds[1]), "cutpoint-bench-dataplane");
    t.setDaemon(true);
    long start = System.nanoTime();
    bounds[1] = start + (warm + windowMillis) * 1_000_000;
    t.start();
    Pause.untilNanos(start + warm * 1_000_000);
    long from = received.getAsLong();
    long cpu0 = ProcessCpu.nanos();
    long t0 = System.nanoTime();
    Pause.untilNanos(bounds[1]);
    long to = received.getAsLong();
    long t1 = System.nanoTime();
    long cpu = cpu0 < 0 ? -1 : ProcessCpu.nanos() - cpu0;
    try {
      t.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    drain(received);
    return new Alternating.Window(to - from, t1 - t0, cpu);
  }

  /** Waits until the receiver stops advancing, so the next window starts on an empty channel. */
  private static void drain(LongSupplier received) {
    long last = -1;
    long now = received.getAsLong();
    while (now != last) {
      last = now;
      Pause.millis(20);
      now = received.getAsLong();
    }
  }
}
