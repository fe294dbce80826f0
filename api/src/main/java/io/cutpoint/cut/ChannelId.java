package io.cutpoint.cut;

import java.util.Comparator;
import java.util.Objects;

/** A directed channel {@code from -> to}. Orders by sender, then receiver. */
public record ChannelId(String from, String to) implements Comparable<ChannelId> {

  private static final Comparator<ChannelId> ORDER =
      Comparator.comparing(ChannelId::from).thenComparing(ChannelId::to);

  public ChannelId {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
  }

  public static ChannelId of(String from, String to) {
    return new ChannelId(from, to);
  }

  @Override
  public int compareTo(ChannelId other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return from + "->" + to;
  }
}
