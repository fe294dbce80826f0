package io.cutpoint.ha;

/**
 * A leader term: its number (1, 2, ...) and the ZooKeeper version of the term node that taking it
 * produced. Every catalog write of a store opened under this term checks that version in the same
 * ZooKeeper transaction, so once a newer term is taken, nothing opened under this one can write.
 *
 * @param number the term number, increasing by one with every leader
 * @param version the version of the term node after this term was taken (the fencing token)
 */
public record LeaderTerm(long number, int version) {
  @Override
  public String toString() {
    return "term " + number + " (term node version " + version + ")";
  }
}
