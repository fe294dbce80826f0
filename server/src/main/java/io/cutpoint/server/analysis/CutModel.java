package io.cutpoint.server.analysis;

import io.cutpoint.cut.ChannelId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the analyses need to know about a cut, and nothing more: per worker its declared activity,
 * its declared waits and its state size; per channel how many messages (and bytes) were recorded in
 * transit. Built from a stored snapshot by {@link SnapshotAnalyzer}, or by hand in tests.
 *
 * @param workers every worker of the cut, by id
 * @param channels every channel of the cut, by id
 */
public record CutModel(SortedMap<String, Worker> workers, SortedMap<ChannelId, Channel> channels) {

  public CutModel {
    workers = Collections.unmodifiableSortedMap(new TreeMap<>(workers));
    channels = Collections.unmodifiableSortedMap(new TreeMap<>(channels));
    workers.forEach(
        (id, w) -> {
          if (!id.equals(w.id())) {
            throw new IllegalArgumentException("worker " + w.id() + " filed under " + id);
          }
        });
    channels.forEach(
        (id, c) -> {
          if (!id.equals(c.channel())) {
            throw new IllegalArgumentException("channel " + c.channel() + " filed under " + id);
          }
        });
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Whether at least one message was recorded in transit on {@code channel}. */
  public boolean inTransit(ChannelId channel) {
    Channel c = channels.get(channel);
    return c != null && c.inFlightMessages() > 0;
  }

  /** Whether a worker has work of its own, as the application declared at capture time. */
  public enum Activity {
    /** The application did not say: counted as not passive. */
    UNSPECIFIED,
    ACTIVE,
    PASSIVE
  }

  /**
   * A declared wait: the worker is blocked until {@code peer} sends to it.
   *
   * @param peer the worker waited for
   * @param resource the name of what {@code peer} holds, or "" (for reports only)
   */
  public record Wait(String peer, String resource) {
    public Wait {
      Objects.requireNonNull(peer, "peer");
      resource = resource == null ? "" : resource;
    }

    public static Wait on(String peer) {
      return new Wait(peer, "");
    }
  }

  /**
   * One worker's contribution.
   *
   * @param id the worker
   * @param activity what it declared
   * @param waits what it declared it waits for, in declaration order
   * @param stateBytes size of its application state
   */
  public record Worker(String id, Activity activity, List<Wait> waits, long stateBytes) {
    public Worker {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(activity, "activity");
      waits = List.copyOf(waits);
      if (stateBytes < 0) {
        throw new IllegalArgumentException("negative state size for " + id);
      }
    }
  }

  /**
   * One channel's recorded state, reduced to sizes.
   *
   * @param channel the channel
   * @param inFlightMessages messages recorded in transit
   * @param inFlightBytes their payload bytes
   */
  public record Channel(ChannelId channel, long inFlightMessages, long inFlightBytes) {
    public Channel {
      Objects.requireNonNull(channel, "channel");
      if (inFlightMessages < 0 || inFlightBytes < 0) {
        throw new IllegalArgumentException("negative sizes on " + channel);
      }
    }
  }

  /** Assembles a model; later entries for the same worker or channel replace earlier ones. */
  public static final class Builder {
    private final SortedMap<String, Worker> workers = new TreeMap<>();
    private final SortedMap<ChannelId, Channel> channels = new TreeMap<>();

    private Builder() {}

    public Builder worker(Worker worker) {
      workers.put(worker.id(), worker);
      return this;
    }

    public Builder worker(String id, Activity activity, Wait... waits) {
      return worker(new Worker(id, activity, List.of(waits), 0));
    }

    /** A passive worker blocked on {@code peers}, in order. */
    public Builder waiting(String id, String... peers) {
      List<Wait> waits = new ArrayList<>();
      for (String p : peers) {
        waits.add(Wait.on(p));
      }
      return worker(new Worker(id, Activity.PASSIVE, waits, 0));
    }

    public Builder channel(Channel channel) {
      channels.put(channel.channel(), channel);
      return this;
    }

    /** A channel {@code from -> to} with {@code messages} in transit of {@code bytes} in total. */
    public Builder channel(String from, String to, long messages, long bytes) {
      return channel(new Channel(ChannelId.of(from, to), messages, bytes));
    }

    /** An empty channel {@code from -> to}. */
    public Builder channel(String from, String to) {
      return channel(from, to, 0, 0);
    }

    public CutModel build() {
      return new CutModel(workers, channels);
    }
  }
}
