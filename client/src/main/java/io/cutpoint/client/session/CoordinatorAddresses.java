package io.cutpoint.client.session;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code HOST:PORT} addresses of the coordinators of one cluster, checked: at least one, each
 * with a host and a port 1-65535, none twice. The worker SDK and the {@code cutpoint} command read
 * them the same way.
 */
public final class CoordinatorAddresses {
  private CoordinatorAddresses() {}

  /**
   * Parses {@code a:7070,b:7070} (spaces around the commas are ignored).
   *
   * @throws IllegalArgumentException when the list is empty, an entry is empty or not {@code
   *     HOST:PORT}, or an address is listed twice
   */
  public static List<String> parse(String commaSeparated) {
    if (commaSeparated == null || commaSeparated.isBlank()) {
      throw new IllegalArgumentException(
          "at least one coordinator address (HOST:PORT) is needed, got none");
    }
    List<String> entries = new ArrayList<>();
    for (String e : commaSeparated.split(",", -1)) {
      if (e.isBlank()) {
        throw new IllegalArgumentException(
            "empty coordinator address in '" + commaSeparated + "' (HOST:PORT,HOST:PORT,...)");
      }
      entries.add(e);
    }
    return check(entries);
  }

  /**
   * The addresses, trimmed, in order.
   *
   * @throws IllegalArgumentException as {@link #parse}
   */
  public static List<String> check(Collection<String> addresses) {
    if (addresses == null || addresses.isEmpty()) {
      throw new IllegalArgumentException(
          "at least one coordinator address (HOST:PORT) is needed, got none");
    }
    Set<String> seen = new LinkedHashSet<>();
    for (String a : addresses) {
      String t = checkOne(a);
      if (!seen.add(t)) {
        throw new IllegalArgumentException("coordinator address '" + t + "' is listed twice");
      }
    }
    return List.copyOf(seen);
  }

  /**
   * One {@code HOST:PORT}, trimmed.
   *
   * @throws IllegalArgumentException unless it is a host, a colon and a port from 1 to 65535
   */
  public static String checkOne(String address) {
    String t = address == null ? "" : address.trim();
    int colon = t.lastIndexOf(':');
    boolean ok = colon > 0 && colon < t.length() - 1;
    if (ok) {
      try {
        int port = Integer.parseInt(t.substring(colon + 1));
        ok = port > 0 && port <= 65535;
      } catch (NumberFormatException e) {
        ok = false;
      }
    }
    if (!ok) {
      throw new IllegalArgumentException(
          "coordinator address must be HOST:PORT with a port 1-65535, got '" + address + "'");
    }
    return t;
  }
}
