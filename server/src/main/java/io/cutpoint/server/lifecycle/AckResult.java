package io.cutpoint.server.lifecycle;

/** What became of an acknowledged piece. Late and duplicate pieces are normal, not errors. */
public enum AckResult {
  /** The piece was accepted for a pending snapshot. */
  SUCCESS,
  /** The worker had already delivered its piece of this snapshot; the new one was ignored. */
  DUPLICATE,
  /** No such snapshot was ever started here (recently): a bogus id. */
  UNKNOWN,
  /** The snapshot has already ended (complete, aborted or failed): a late piece, dropped. */
  DISCARDED
}
