package io.cutpoint.server.membership;

import java.util.Optional;
import java.util.regex.Pattern;

/** Validation of worker ids and channel addresses as the wire protocol defines them. */
public final class WorkerIds {

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private WorkerIds() {}

  /** Why {@code id} is not a valid worker id, or empty when it is. */
  public static Optional<String> problem(String id) {
    if (id == null || id.isEmpty()) {
      return Optional.of("worker id is empty");
    }
    if (id.length() > 128) {
      return Optional.of("worker id is " + id.length() + " characters long; at most 128 are allowed");
    }
    if (!ID.matcher(id).matches()) {
      return Optional.of("worker id '" + id + "' may only contain A-Z a-z 0-9 . _ -");
    }
    return Optional.empty();
  }

  public static boolean valid(String id) {
    return problem(id).isEmpty();
  }

  /** Why {@code address} is not a usable {@code host:port}, or empty when it is. */
  public static Optional<String> addressProblem(String address) {
    if (address == null || address.isBlank()) {
      return Optional.of("channel address is empty");
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      return Optional.of("channel address '" + address + "' is not host:port");
    }
    try {
      int port = Integer.parseInt(address.substring(colon + 1));
      if (port < 1 || port > 65535) {
        return Optional.of("channel address '" + address + "' has port " + port + " outside 1..65535");
      }
    } catch (NumberFormatException e) {
      return Optional.of("channel address '" + address + "' has no numeric port");
    }
    return Optional.empty();
  }
}
