package io.cutpoint.server.analysis;

import java.util.Comparator;
import java.util.Objects;

/**
 * An edge of the global wait-for graph: {@code waiter} is blocked until {@code holder} sends to it.
 * Orders by waiter, holder, then resource, which is the order every report uses.
 *
 * @param waiter the blocked worker
 * @param holder the worker it waits for
 * @param resource what the application named, or ""
 */
public record WaitEdge(String waiter, String holder, String resource)
    implements Comparable<WaitEdge> {

  private static final Comparator<WaitEdge> ORDER =
      Comparator.comparing(WaitEdge::waiter)
          .thenComparing(WaitEdge::holder)
          .thenComparing(WaitEdge::resource);

  public WaitEdge {
    Objects.requireNonNull(waiter, "waiter");
    Objects.requireNonNull(holder, "holder");
    resource = resource == null ? "" : resource;
  }

  public static WaitEdge of(String waiter, String holder) {
    return new WaitEdge(waiter, holder, "");
  }

  @Override
  public int compareTo(WaitEdge other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return waiter + " waits for " + holder + (resource.isEmpty() ? "" : " (" + resource + ")");
  }
}
