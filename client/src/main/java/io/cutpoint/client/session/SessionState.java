package io.cutpoint.client.session;

/** Where a {@link CoordinatorSession} stands. */
public enum SessionState {
  /** Opening the session stream, waiting for {@code welcome}, or backing off before a retry. */
  CONNECTING,
  /** Welcomed; the worker runs normally and heartbeats. */
  JOINED,
  /**
   * Welcomed, and the worker is halted for a rollback: it waits for {@code restore}/{@code resume}.
   */
  HALTED,
  /** Closed by {@link CoordinatorSession#close()} or ended by a fatal join refusal. Final. */
  CLOSED
}
