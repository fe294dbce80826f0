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
public record WaitsFor(String waiter, String holder, String resource)
    implements Comparable<WaitsFor> {

  private static final Comparator<WaitsFor> ORDER =
      Comparator.comparing(WaitsFor::waiter)
          .thenComparing(WaitsFor::holder)
          .thenComparing(WaitsFor::resource);

  public WaitsFor {
    Objects.requireNonNull(waiter, "waiter");
    Objects.requireNonNull(holder, "holder");
    resource = resource == null ? "" : resource;
  }

  public static WaitsFor of(String waiter, String holder) {
    return new WaitsFor(waiter, holder, "");
  }

  @Override
  public int compareTo(WaitsFor other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return waiter + " waits for " + holder + (resource.isEmpty() ? "" : " (" + resource + ")");
  }
}
