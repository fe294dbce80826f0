package io.cutpoint.server.analysis;

import java.util.Objects;

/**
 * Everything the analysis says about one cut.
 *
 * @param deadlock the deadlock verdict
 * @param termination the termination verdict
 * @param statistics the sizes
 */
public record CutAnalysis(
    DeadlockVerdict deadlock, TerminationVerdict termination, CutStatistics statistics) {

  public CutAnalysis {
    Objects.requireNonNull(deadlock, "deadlock");
    Objects.requireNonNull(termination, "termination");
    Objects.requireNonNull(statistics, "statistics");
  }

  /** Runs every analysis on {@code cut}. */
  public static CutAnalysis of(CutModel cut) {
    return new CutAnalysis(
        DeadlockDetector.detect(cut), TerminationDetector.detect(cut), CutStatistics.of(cut));
  }
}
