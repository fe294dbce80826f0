package io.cutpoint.client;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run by hand to tune the channels: prints messages per second on one channel {@code a -> b} for
 * 16-byte payloads, sent from a plain application thread and received by a counting handler.
 * Arguments: [messages per round] [rounds] [items per frame].
 */
public final class ChannelThroughputProbe {

  private ChannelThroughputProbe() {}

  public static void main(String[] args) throws Exception {
    long perRound = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    ChannelOptions options = ChannelOptions.defaults();
    if (args.length > 2) {
      options = options.withMaxItemsPerFrame(Integer.parseInt(args[2]));
    }
    AtomicLong received = new AtomicLong();
    StateHandler noState =
        new StateHandler() {
          @Override
          public byte[] capture() {
            return new byte[0];
          }

          @Override
          public void restore(byte[] state) {}
        };
    try (Worker b =
            Worker.builder("b")
                .incoming("a")
                .stateHandler(noState)
                .messageHandler((from, seq, p) -> received.lazySet(seq))
                .channelOptions(options)
                .build()
                .start();
        Worker a =
            Worker.builder("a")
                .outgoing("b")
                .stateHandler(noState)
                .messageHandler((from, seq, p) -> {})
                .channelOptions(options)
                .peers(Map.of("b", b.channelAddress()))
                .build()
                .start()) {
      byte[] payload = new byte[16];
      for (int round = 1; round <= rounds; round++) {
        long start = System.nanoTime();
        long target = received.get() + perRound;
        for (long i = 0; i < perRound; i++) {
          a.send("b", payload);
        }
        while (received.get() < target) {
          Thread.onSpinWait();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(
            "round %d: %,d messages of 16 B in %.2f s = %,.0f messages/s (frames sent %,d)%n",
            round, perRound, seconds, perRound / seconds, a.counters().framesSent());
      }
      a.startSnapshot(1);
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (b.counters().snapshotsCompleted() == 0 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      System.out.println("counters a: " + a.counters());
      System.out.println("counters b: " + b.counters());
    }
  }
}
