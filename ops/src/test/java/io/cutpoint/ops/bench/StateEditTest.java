package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The edits of the incremental snapshots: on a copy, the fraction asked, where the pattern says.
 */
class StateEditTest {

  private static final int STATE = 1 << 20;

  @Test
  void anEditWritesACopyAndLeavesTheCapturedArrayAsItWas() {
    byte[] captured = StateEdit.random(STATE, 1);
    byte[] before = captured.clone();
    for (StateEdit.Pattern p : StateEdit.Pattern.values()) {
      byte[] next = StateEdit.edited(captured, 0.1, p, new SplittableRandom(2));
      assertThat(next).as(p.label()).isNotSameAs(captured).hasSameSizeAs(captured);
      assertThat(captured).as("the captured array after a %s edit", p.label()).isEqualTo(before);
      assertThat(differing(captured, next)).as(p.label()).isNotEmpty();
    }
  }

  @Test
  void oneRunOverwritesOneContiguousRunOfTheFraction() {
    byte[] state = StateEdit.random(STATE, 3);
    int length = StateEdit.changedBytes(STATE, 0.01, StateEdit.Pattern.ONE_RUN);
    assertThat(length).isEqualTo(Math.round(0.01 * STATE));
    for (long seed = 0; seed < 20; seed++) {
      List<Integer> changed =
          differing(
              state,
              StateEdit.edited(state, 0.01, StateEdit.Pattern.ONE_RUN, new SplittableRandom(seed)));
      int span = changed.get(changed.size() - 1) - changed.get(0) + 1;
      assertThat(span).as("one run, seed %d", seed).isLessThanOrEqualTo(length);
      // a fresh random byte equals the old one once in 256
      assertThat(changed.size()).as("bytes changed, seed %d", seed).isGreaterThan(length * 9 / 10);
    }
  }

  @Test
  void scatteredOverwritesDistinctAlignedRecordsOfTheFraction() {
    byte[] state = StateEdit.random(STATE, 4);
    int records = 26; // 10% of 256 records
    assertThat(StateEdit.changedBytes(STATE, 0.1, StateEdit.Pattern.SCATTERED))
        .isEqualTo(records * StateEdit.RECORD_BYTES);
    for (long seed = 0; seed < 20; seed++) {
      byte[] next =
          StateEdit.edited(state, 0.1, StateEdit.Pattern.SCATTERED, new SplittableRandom(seed));
      TreeSet<Integer> touched = new TreeSet<>();
      differing(state, next).forEach(i -> touched.add(i / StateEdit.RECORD_BYTES));
      assertThat(touched).as("records changed, seed %d", seed).hasSize(records);
      for (int r : touched) {
        int at = r * StateEdit.RECORD_BYTES;
        int changed = 0;
        for (int i = at; i < at + StateEdit.RECORD_BYTES; i++) {
          changed += state[i] != next[i] ? 1 : 0;
        }
        assertThat(changed).as("record %d is overwritten whole", r).isGreaterThan(3900);
      }
    }
  }

  @Test
  void smallFractionsChangeAtLeastOneByteOrRecordAndNeverMoreThanTheState() {
    assertThat(StateEdit.changedBytes(1000, 0.0001, StateEdit.Pattern.ONE_RUN)).isEqualTo(1);
    assertThat(StateEdit.changedBytes(1000, 2.0, StateEdit.Pattern.ONE_RUN)).isEqualTo(1000);
    assertThat(StateEdit.changedBytes(STATE, 0.001, StateEdit.Pattern.SCATTERED))
        .isEqualTo(StateEdit.RECORD_BYTES);
    assertThat(StateEdit.changedBytes(8192, 1.0, StateEdit.Pattern.SCATTERED)).isEqualTo(8192);
    // 16 MiB, 1%: 41 records against 167,772 bytes in one run
    assertThat(StateEdit.changedBytes(16 << 20, 0.01, StateEdit.Pattern.SCATTERED))
        .isEqualTo(41 * StateEdit.RECORD_BYTES);
    byte[] whole = StateEdit.random(8192, 5);
    assertThat(
            differing(
                whole,
                StateEdit.edited(whole, 1.0, StateEdit.Pattern.SCATTERED, new SplittableRandom(6))))
        .hasSizeGreaterThan(8000);
    assertThatThrownBy(
            () ->
                StateEdit.edited(
                    new byte[100], 0.1, StateEdit.Pattern.SCATTERED, new SplittableRandom(7)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void randomStatesRepeatForASeedAndDifferBetweenSeeds() {
    assertThat(StateEdit.random(10_001, 8)).isEqualTo(StateEdit.random(10_001, 8));
    assertThat(differing(StateEdit.random(10_001, 8), StateEdit.random(10_001, 9)))
        .hasSizeGreaterThan(9_900);
  }

  private static List<Integer> differing(byte[] a, byte[] b) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < a.length; i++) {
      if (a[i] != b[i]) {
        out.add(i);
      }
    }
    return out;
  }
}
