package io.cutpoint.server.membership;

import io.cutpoint.api.WorkerIdSyntax;
import java.util.Optional;

/**
 * Validation of worker ids and channel addresses as the wire protocol defines them. Every string a
 * worker supplies is checked (and bounded) here before anything keeps or echoes it.
 */
public final class WorkerIds {

  /** Longest worker id the protocol allows. */
  public static final int MAX_ID_LENGTH = WorkerIdSyntax.MAX_ID_LENGTH;

  /** Longest channel address ({@code host:port}; a DNS name has at most 253 characters). */
  public static final int MAX_ADDRESS_LENGTH = 261;

  /** Longest free text (a worker's reason for a failed local snapshot) that is kept. */
  public static final int MAX_TEXT_LENGTH = 1024;

  private WorkerIds() {}

  /** Why {@code id} is not a valid worker id, or empty when it is. */
  public static Optional<String> problem(String id) {
    return problem(id, MAX_ID_LENGTH);
  }

  /** Why {@code id} is not a valid worker id of at most {@code maxLength} characters, or empty. */
  public static Optional<String> problem(String id, int maxLength) {
    return WorkerIdSyntax.problem(id, maxLength);
  }

  public static boolean valid(String id) {
    return problem(id).isEmpty();
  }

  /** Why {@code address} is not a usable {@code host:port}, or empty when it is. */
  public static Optional<String> addressProblem(String address) {
    if (address == null || address.isBlank()) {
      return Optional.of("channel address is empty");
    }
    if (address.length() > MAX_ADDRESS_LENGTH) {
      return Optional.of(
          "channel address is "
              + address.length()
              + " characters long; at most "
              + MAX_ADDRESS_LENGTH
              + " are allowed");
    }
    for (int i = 0; i < address.length(); i++) {
      char c = address.charAt(i);
      if (c <= ' ' || c >= 0x7f) {
        return Optional.of("channel address may only contain printable ASCII without spaces");
      }
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      return Optional.of("channel address '" + address + "' is not host:port");
    }
    try {
      int port = Integer.parseInt(address.substring(colon + 1));
      if (port < 1 || port > 65535) {
        return Optional.of(
            "channel address '" + address + "' has port " + port + " outside 1..65535");
      }
    } catch (NumberFormatException e) {
      return Optional.of("channel address '" + address + "' has no numeric port");
    }
    return Optional.empty();
  }

  /** {@code text} as kept: at most {@link #MAX_TEXT_LENGTH} characters, saying how long it was. */
  public static String text(String text) {
    if (text.length() <= MAX_TEXT_LENGTH) {
      return text;
    }
    return text.substring(0, MAX_TEXT_LENGTH) + "... (" + text.length() + " characters)";
  }
}
