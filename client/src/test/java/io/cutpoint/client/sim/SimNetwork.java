package io.cutpoint.client.sim;

import io.cutpoint.cut.ChannelId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Simulated time and reliable FIFO channels. Every item gets a random delay, but never arrives
 * before an item put on the same channel earlier. Events at the same tick run in the order they
 * were scheduled, so a schedule is a pure function of the seed.
 */
public final class SimNetwork {

  /** What travels on a channel. */
  public sealed interface Item {}

  public record Data(long seq, byte[] payload) implements Item {}

  public record Marker(long snapshotId, long sentCount) implements Item {}

  /** An early copy of a marker, on a lane that neither waits for nor holds back the channel. */
  public record EarlyMarker(long snapshotId, long sentCount) implements Item {}

  private record Event(long time, long order, Runnable action) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int byTime = Long.compare(time, o.time);
      return byTime != 0 ? byTime : Long.compare(order, o.order);
    }
  }

  private record InTransit(long epoch, Item item) {}

  private static final class Channel {
    final ChannelId id;
    final ArrayDeque<InTransit> inTransit = new ArrayDeque<>();
    long lastArrival;

    Channel(ChannelId id) {
      this.id = id;
    }
  }

  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private final Map<ChannelId, Channel> channels = new HashMap<>();
  private final SplittableRandom random;
  private final long maxDelay;
  private Consumer<String> trace = s -> {};
  private long now;
  private long order;
  private long itemsSent;
  private long epoch;

  public SimNetwork(Iterable<ChannelId> channelIds, SplittableRandom random, long maxDelay) {
    for (ChannelId id : channelIds) {
      channels.put(id, new Channel(id));
    }
    this.random = random;
    this.maxDelay = Math.max(1, maxDelay);
  }

  void trace(Consumer<String> sink) {
    this.trace = sink;
  }

  public long now() {
    return now;
  }

  public long itemsSent() {
    return itemsSent;
  }

  /** Runs {@code action} at tick {@code time} (not before now). */
  public void at(long time, Runnable action) {
    queue.add(new Event(Math.max(time, now), order++, action));
  }

  /** Puts {@code item} on channel {@code from -> to}; {@code receiver} gets it when it arrives. */
  public void transmit(String from, String to, Item item, Receiver receiver) {
    Channel c = channels.get(ChannelId.of(from, to));
    if (c == null) {
      throw new IllegalArgumentException("no channel " + from + "->" + to);
    }
    long arrival = Math.max(now + 1 + random.nextLong(maxDelay), c.lastArrival);
    c.lastArrival = arrival;
    c.inTransit.add(new InTransit(epoch, item));
    itemsSent++;
    trace.accept(now + " put " + c.id + " " + describe(item) + " arrives " + arrival);
    at(
        arrival,
        () -> {
          InTransit head = c.inTransit.poll();
          if (head.epoch != epoch) {
            trace.accept(
                now + " drop " + c.id + " " + describe(head.item) + " of epoch " + head.epoch);
            return;
          }
          trace.accept(now + " arrive " + c.id + " " + describe(head.item));
          receiver.receive(from, head.item);
        });
  }

  /**
   * Puts {@code item} on the overtaking lane of {@code from -> to}: it arrives after 1..2 *
   * maxDelay ticks, whatever is queued on the channel, and items put on the channel later may
   * arrive before it. A rollback drops it like any other item of the old epoch.
   */
  public void transmitAhead(String from, String to, Item item, Receiver receiver) {
    ChannelId id = ChannelId.of(from, to);
    if (!channels.containsKey(id)) {
      throw new IllegalArgumentException("no channel " + from + "->" + to);
    }
    long arrival = now + 1 + random.nextLong(2 * maxDelay);
    long sentIn = epoch;
    itemsSent++;
    trace.accept(now + " put ahead " + id + " " + describe(item) + " arrives " + arrival);
    at(
        arrival,
        () -> {
          if (sentIn != epoch) {
            trace.accept(now + " drop " + id + " " + describe(item) + " of epoch " + sentIn);
            return;
          }
          trace.accept(now + " arrive " + id + " " + describe(item));
          receiver.receive(from, item);
        });
  }

  /**
   * The data messages of the current epoch in transit on {@code from -> to} ahead of the marker of
   * {@code snapshotId}, oldest first: what a receiver reading ahead may hold when that marker
   * reaches it. Empty when that marker is not in transit any more.
   */
  public List<Data> dataAheadOf(String from, String to, long snapshotId) {
    List<Data> ahead = new ArrayList<>();
    for (InTransit t : channels.get(ChannelId.of(from, to)).inTransit) {
      if (t.epoch != epoch) {
        continue;
      }
      if (t.item instanceof Marker m && m.snapshotId() == snapshotId) {
        return ahead;
      }
      if (t.item instanceof Data d) {
        ahead.add(d);
      }
    }
    return List.of();
  }

  /** A rollback: everything now in transit belongs to the old epoch and is dropped on arrival. */
  public void newEpoch() {
    epoch++;
    trace.accept(now + " epoch " + epoch);
  }

  public long epoch() {
    return epoch;
  }

  /** Runs the next event; false when there is none. */
  public boolean step() {
    Event e = queue.poll();
    if (e == null) {
      return false;
    }
    now = e.time;
    e.action.run();
    return true;
  }

  /** Items of the current epoch in transit on every channel, for end-of-run accounting. */
  public Iterable<Item> inTransit() {
    return () ->
        channels.values().stream()
            .flatMap(c -> c.inTransit.stream())
            .filter(t -> t.epoch == epoch)
            .map(InTransit::item)
            .iterator();
  }

  private static String describe(Item item) {
    if (item instanceof Data d) {
      return "data#" + d.seq() + "(" + d.payload().length + "B)";
    }
    if (item instanceof EarlyMarker m) {
      return "early-marker(S=" + m.snapshotId() + ",sent=" + m.sentCount() + ")";
    }
    Marker m = (Marker) item;
    return "marker(S=" + m.snapshotId() + ",sent=" + m.sentCount() + ")";
  }

  /** Whoever is at the receiving end of a channel. */
  @FunctionalInterface
  public interface Receiver {
    void receive(String from, Item item);
  }
}
