package io.cutpoint.ops.demo;

import java.util.List;
import java.util.Map;

/**
 * Checks that a cut of the bank conserves money: the balances recorded in the workers' states plus
 * the amounts recorded in transit on the channels equal the money the bank started with. Pure.
 */
public final class ConservationCheck {

  private ConservationCheck() {}

  /**
   * @param balances recorded balance per worker
   * @param inFlight recorded transfers per channel ({@code from->to}), as amounts
   * @param expectedTotal the money the bank holds
   */
  public static Result check(
      Map<String, Long> balances, Map<String, List<Long>> inFlight, long expectedTotal) {
    long sumBalances = 0;
    for (long b : balances.values()) {
      sumBalances += b;
    }
    long sumInFlight = 0;
    long messages = 0;
    for (List<Long> amounts : inFlight.values()) {
      for (long a : amounts) {
        sumInFlight += a;
        messages++;
      }
    }
    return new Result(sumBalances, sumInFlight, messages, expectedTotal);
  }

  /** The sums of one check. */
  public record Result(long balances, long inFlight, long inFlightMessages, long expected) {

    public long total() {
      return balances + inFlight;
    }

    public boolean conserved() {
      return total() == expected;
    }

    /** {@code 4000 = 3970 in accounts + 30 in flight (3 transfers)}, or the difference. */
    public String describe() {
      String sums =
          total()
              + " = "
              + balances
              + " in accounts + "
              + inFlight
              + " in flight ("
              + inFlightMessages
              + " transfer"
              + (inFlightMessages == 1 ? "" : "s")
              + ")";
      return conserved()
          ? sums
          : sums + ", expected " + expected + " (off by " + (total() - expected) + ")";
    }
  }
}
