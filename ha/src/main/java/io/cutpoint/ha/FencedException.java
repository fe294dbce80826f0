package io.cutpoint.ha;

import io.cutpoint.storage.StoreException;

/**
 * A catalog write was refused because the leader term it was made under is no longer current: a
 * newer leader took over. Nothing of the write happened. The process should stop acting as the
 * leader.
 */
public final class FencedException extends StoreException {
  private static final long serialVersionUID = 1L;
  private final transient LeaderTerm term;

  public FencedException(String message, LeaderTerm term) {
    super(message);
    this.term = term;
  }

  /** The term the refused write was made under. */
  public LeaderTerm term() {
    return term;
  }
}
