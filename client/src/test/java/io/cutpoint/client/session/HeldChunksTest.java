package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.ChunkAnswer;
import io.cutpoint.client.chunks.ChunkRef;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeldChunksTest {

  private static final int KIB = 1 << 10;

  @Test
  void theChunksAnAnswerDoesNotListAsMissingAreHeld() {
    List<ChunkRef> asked = chunks(0, 4, 64 * KIB);
    HeldChunks held = HeldChunks.of(asked, answer(1, 3));
    assertThat(held.holds(asked.get(0).sha256())).isTrue();
    assertThat(held.holds(asked.get(1).sha256())).isFalse();
    assertThat(held.holds(asked.get(2).sha256())).isTrue();
    assertThat(held.holds(asked.get(3).sha256())).isFalse();
    assertThat(held.holds(chunks(9, 1, 1).get(0).sha256())).as("not asked").isFalse();
  }

  @Test
  void anAnswerThatIsNotAscendingPositionsOfTheQuestionIsRefused() {
    List<ChunkRef> asked = chunks(0, 4, 64 * KIB);
    assertThat(HeldChunks.of(asked, answer(2, 1))).isNull();
    assertThat(HeldChunks.of(asked, answer(1, 1))).isNull();
    assertThat(HeldChunks.of(asked, answer(4))).isNull();
    assertThat(HeldChunks.of(asked, null)).isNull();
  }

  @Test
  void upToAnEighthOfTheStateGoesUpWithoutAskingAgain() {
    List<ChunkRef> old = chunks(0, 16, 64 * KIB);
    HeldChunks held = HeldChunks.of(old, answer());
    List<ChunkRef> now = new ArrayList<>(old);
    now.set(3, chunks(100, 1, 64 * KIB).get(0));
    now.set(9, chunks(101, 1, 64 * KIB).get(0));
    assertThat(held.toSend(now)).containsExactly(3, 9); // 2 of 16: an eighth exactly
    now.set(12, chunks(102, 1, 64 * KIB).get(0));
    assertThat(held.toSend(now)).as("3 of 16: ask again").isNull();
  }

  @Test
  void atMostFourMebibytesGoUpWithoutAskingAgain() {
    List<ChunkRef> old = chunks(0, 64, 1 << 20); // 64 MiB: an eighth is 8 MiB
    HeldChunks held = HeldChunks.of(old, answer());
    List<ChunkRef> now = new ArrayList<>(old);
    for (int i = 0; i < 4; i++) {
      now.set(i, chunks(200 + i, 1, 1 << 20).get(0));
    }
    assertThat(held.toSend(now)).containsExactly(0, 1, 2, 3);
    now.set(4, chunks(300, 1, 1 << 20).get(0));
    assertThat(held.toSend(now)).isNull();
  }

  @Test
  void nothingHeldMeansAskingAboutTheWholeState() {
    assertThat(HeldChunks.NONE.toSend(chunks(0, 16, 64 * KIB))).isNull();
    assertThat(HeldChunks.NONE.toSend(List.of())).isEmpty();
  }

  private static ChunkAnswer answer(int... missing) {
    ChunkAnswer.Builder b = ChunkAnswer.newBuilder();
    for (int m : missing) {
      b.addMissing(m);
    }
    return b.build();
  }

  /**
   * {@code n} chunks of {@code length} bytes with distinct hashes, the first named {@code from}.
   */
  private static List<ChunkRef> chunks(int from, int n, int length) {
    List<ChunkRef> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] sha = new byte[32];
      sha[0] = (byte) (from + i);
      sha[1] = (byte) ((from + i) >> 8);
      out.add(new ChunkRef(i * length, length, sha, from + i));
    }
    return out;
  }
}
