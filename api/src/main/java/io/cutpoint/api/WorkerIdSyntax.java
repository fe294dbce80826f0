package io.cutpoint.api;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the wire protocol allows as a worker id: 1 to {@link #MAX_ID_LENGTH} characters of {@code
 * A-Z a-z 0-9 . _ -}. The coordinator checks every id a worker declares with it, and a worker
 * checks the ids a channel header claims, before either keeps or echoes them.
 */
public final class WorkerIdSyntax {

  /** Longest worker id the protocol allows. */
  public static final int MAX_ID_LENGTH = 128;

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private WorkerIdSyntax() {}

  /**
   * Why {@code id} is not a valid worker id of at most {@code maxLength} characters (capped at
   * {@link #MAX_ID_LENGTH}), or empty when it is. A too long id is described by its length, never
   * echoed.
   */
  public static Optional<String> problem(String id, int maxLength) {
    int max = Math.min(maxLength, MAX_ID_LENGTH);
    if (id == null || id.isEmpty()) {
      return Optional.of("worker id is empty");
    }
    if (id.length() > max) {
      return Optional.of(
          "worker id is " + id.length() + " characters long; at most " + max + " are allowed");
    }
    if (!ID.matcher(id).matches()) {
      return Optional.of("worker id '" + id + "' may only contain A-Z a-z 0-9 . _ -");
    }
    return Optional.empty();
  }
}
