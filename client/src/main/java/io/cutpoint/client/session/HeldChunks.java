package io.cutpoint.client.session;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ChunkAnswer;
import io.cutpoint.client.chunks.ChunkRef;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The chunks a coordinator said it holds for a snapshot, by SHA-256, and what a new state of that
 * snapshot then has to send. Pure logic.
 *
 * <p>A worker asks about the chunks of its last uploaded state as soon as its local snapshot is
 * complete, while the new state is still being cut: most of the new state's chunks are those, so
 * the answer is usually all the upload needs, and its round trip overlaps the cutting instead of
 * following it. The chunks of the new state that were not asked about go up without a question as
 * long as they are few: at most an eighth of the state and at most {@link #ASK_AGAIN_BYTES}. More
 * than that (a large change, a state that went back to an older one), and the worker asks again
 * about the whole new state, since some may be held already (another worker's, an older
 * snapshot's). The coordinator holds every chunk it answered for until the snapshot ends, so a
 * chunk left out because of an answer cannot be deleted before the commit.
 */
final class HeldChunks {

  /** The most bytes of chunks not asked about that go up without asking about them. */
  static final long ASK_AGAIN_BYTES = 4 << 20;

  /** None: nothing was asked, or the question failed. */
  static final HeldChunks NONE = new HeldChunks(Set.of());

  private final Set<ByteString> held;

  private HeldChunks(Set<ByteString> held) {
    this.held = held;
  }

  /**
   * The chunks of {@code asked} that {@code answer} does not list as missing; null if the answer is
   * not ascending positions of {@code asked}.
   */
  static HeldChunks of(List<ChunkRef> asked, ChunkAnswer answer) {
    int[] missing = missing(answer, asked.size());
    if (missing == null) {
      return null;
    }
    Set<ByteString> held = new HashSet<>();
    int next = 0;
    for (int i = 0; i < asked.size(); i++) {
      if (next < missing.length && missing[next] == i) {
        next++;
      } else {
        held.add(ByteString.copyFrom(asked.get(i).sha256()));
      }
    }
    return new HeldChunks(held);
  }

  /**
   * The positions the answer lists, or null if they are not ascending positions below {@code n}.
   */
  static int[] missing(ChunkAnswer answer, int n) {
    if (answer == null) {
      return null;
    }
    int[] send = new int[answer.getMissingCount()];
    int previous = -1;
    for (int i = 0; i < send.length; i++) {
      int p = answer.getMissing(i);
      if (p <= previous || p >= n) {
        return null;
      }
      send[i] = previous = p;
    }
    return send;
  }

  /** Whether the coordinator said it holds the chunk with this SHA-256. */
  boolean holds(byte[] sha256) {
    return held.contains(ByteString.copyFrom(sha256));
  }

  /**
   * The positions of {@code recipe} to send, ascending: those of the chunks not held; or null when
   * they are too many to send without asking about them (see the class comment).
   */
  int[] toSend(List<ChunkRef> recipe) {
    int[] send = new int[recipe.size()];
    int count = 0;
    long bytes = 0;
    long total = 0;
    for (int i = 0; i < recipe.size(); i++) {
      ChunkRef c = recipe.get(i);
      total += c.length();
      if (!holds(c.sha256())) {
        send[count++] = i;
        bytes += c.length();
      }
    }
    if (bytes > Math.min(total / 8, ASK_AGAIN_BYTES)) {
      return null;
    }
    return java.util.Arrays.copyOf(send, count);
  }
}
