package io.cutpoint.server.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.cut.ChannelId;
import io.cutpoint.server.analysis.CutModel.Activity;
import org.junit.jupiter.api.Test;

class TerminationDetectorTest {

  @Test
  void allPassiveAndAllChannelsEmptyIsTerminated() {
    CutModel cut =
        CutModel.builder()
            .worker("a", Activity.PASSIVE)
            .worker("b", Activity.PASSIVE)
            .channel("a", "b")
            .channel("b", "a")
            .build();

    TerminationVerdict verdict = TerminationDetector.detect(cut);

    assertThat(verdict.terminated()).isTrue();
    assertThat(verdict.activeWorkers()).isEmpty();
    assertThat(verdict.nonEmptyChannels()).isEmpty();
  }

  @Test
  void oneActiveWorkerMeansNotTerminated() {
    CutModel cut =
        CutModel.builder()
            .worker("a", Activity.PASSIVE)
            .worker("b", Activity.ACTIVE)
            .channel("a", "b")
            .build();

    TerminationVerdict verdict = TerminationDetector.detect(cut);

    assertThat(verdict.terminated()).isFalse();
    assertThat(verdict.activeWorkers()).containsExactly("b");
    assertThat(verdict.nonEmptyChannels()).isEmpty();
  }

  @Test
  void aWorkerThatDidNotDeclareItsActivityCountsAsActive() {
    CutModel cut =
        CutModel.builder().worker("a", Activity.PASSIVE).worker("b", Activity.UNSPECIFIED).build();

    assertThat(TerminationDetector.detect(cut).activeWorkers()).containsExactly("b");
  }

  @Test
  void aMessageInTransitMeansNotTerminatedEvenIfEveryoneIsPassive() {
    CutModel cut =
        CutModel.builder()
            .worker("a", Activity.PASSIVE)
            .worker("b", Activity.PASSIVE)
            .channel("a", "b")
            .channel("b", "a", 1, 16)
            .build();

    TerminationVerdict verdict = TerminationDetector.detect(cut);

    assertThat(verdict.terminated()).isFalse();
    assertThat(verdict.activeWorkers()).isEmpty();
    assertThat(verdict.nonEmptyChannels()).containsExactly(ChannelId.of("b", "a"));
  }

  @Test
  void everyActiveWorkerAndEveryNonEmptyChannelIsListedSorted() {
    CutModel cut =
        CutModel.builder()
            .worker("z", Activity.ACTIVE)
            .worker("m", Activity.PASSIVE)
            .worker("a", Activity.ACTIVE)
            .channel("z", "a", 2, 2)
            .channel("a", "z", 1, 1)
            .channel("a", "m")
            .build();

    TerminationVerdict verdict = TerminationDetector.detect(cut);

    assertThat(verdict.activeWorkers()).containsExactly("a", "z");
    assertThat(verdict.nonEmptyChannels())
        .containsExactly(ChannelId.of("a", "z"), ChannelId.of("z", "a"));
  }

  @Test
  void aDeadlockedButPassiveClusterWithEmptyChannelsIsAlsoTerminated() {
    // Termination is about activity and channels only: nothing will ever happen again here.
    CutModel cut = CutModel.builder().waiting("a", "b").waiting("b", "a").channel("a", "b").build();

    assertThat(TerminationDetector.detect(cut).terminated()).isTrue();
    assertThat(DeadlockDetector.detect(cut).deadlocked()).isTrue();
  }
}
