package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The bank application's own checks catch the channel faults the SDK tests rely on them for. */
class BankAccountTest {

  private static BankAccount receiver() {
    return new BankAccount(0, List.of(), 1, 0);
  }

  @Test
  void inOrderMessagesRaiseNothing() {
    BankAccount b = receiver();
    b.onMessage("a", 1, BankAccount.encode(5, 1));
    b.onMessage("a", 2, BankAccount.encode(5, 2));
    b.onMessage("c", 1, BankAccount.encode(5, 1));
    assertThat(b.violations).isEmpty();
    assertThat(b.balance()).isEqualTo(15);
  }

  @Test
  void aLostDuplicatedOrReorderedMessageIsReported() {
    BankAccount lost = receiver();
    lost.onMessage("a", 1, BankAccount.encode(5, 1));
    lost.onMessage("a", 3, BankAccount.encode(5, 3));
    assertThat(lost.violations).hasSize(1);

    BankAccount duplicated = receiver();
    duplicated.onMessage("a", 1, BankAccount.encode(5, 1));
    duplicated.onMessage("a", 1, BankAccount.encode(5, 1));
    assertThat(duplicated.violations).hasSize(1);

    BankAccount reordered = receiver();
    reordered.onMessage("a", 2, BankAccount.encode(5, 2));
    reordered.onMessage("a", 1, BankAccount.encode(5, 1));
    assertThat(reordered.violations).hasSize(2);
  }

  @Test
  void stateRoundTripsThroughCaptureAndRestore() {
    BankAccount b = receiver();
    b.onMessage("a", 1, BankAccount.encode(7, 1));
    byte[] state = b.capture();
    BankAccount copy = receiver();
    copy.restore(state);
    assertThat(copy.balance()).isEqualTo(7);
    assertThat(BankAccount.balanceOf(state)).isEqualTo(7);
    copy.onMessage("a", 2, BankAccount.encode(1, 2));
    assertThat(copy.violations).as("the sequence bookkeeping was restored too").isEmpty();
  }
}
