package io.cutpoint.client.session;

import com.google.common.util.concurrent.MoreExecutors;
import io.cutpoint.client.chunks.ArrayChunks;
import io.cutpoint.client.chunks.ContentChunker;
import io.cutpoint.client.chunks.KeyedChunks;
import io.cutpoint.client.chunks.StateContent;
import io.cutpoint.client.engine.CapturedState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts a worker's captured states into content chunks and hashes them, off the loop, from the
 * moment each is captured: a state does not change once captured (the application's promise), so
 * its cutting runs while the snapshot's markers are still out, and an upload that starts when the
 * local snapshot completes takes the cut that is done or under way. The states are cut one at a
 * time, in the order they were captured, as {@link KeyedChunks} and {@link ArrayChunks} compare
 * each with the last. Loop only, except the cutting itself.
 */
final class StateCutter {

  private static final Logger log = LoggerFactory.getLogger(StateCutter.class);

  /** A state cut into chunks: {@code began} and {@code chunked} on {@link System#nanoTime()}. */
  record Cut(StateContent content, long began, long chunked) {}

  /**
   * One state's cutting, from its capture to the upload that takes it. Loop only, but for {@code
   * state}: the state to cut, until the chunking thread takes it or the cutting is forgotten.
   */
  private static final class Cutting {
    final AtomicReference<CapturedState> state;
    Cut cut;
    RuntimeException failure;
    Consumer<Cut> onCut; // the upload waiting for it, if any
    Consumer<RuntimeException> onFailure;

    Cutting(CapturedState state) {
      this.state = new AtomicReference<>(state);
    }

    void done(Cut c, RuntimeException f) {
      cut = c;
      failure = f;
      if (onCut != null) {
        hand();
      }
    }

    void take(Consumer<Cut> onCut, Consumer<RuntimeException> onFailure) {
      this.onCut = onCut;
      this.onFailure = onFailure;
      if (cut != null || failure != null) {
        hand();
      }
    }

    private void hand() {
      if (failure != null) {
        onFailure.accept(failure);
      } else {
        onCut.accept(cut);
      }
    }
  }

  private final KeyedChunks keyedChunks = new KeyedChunks(ContentChunker.defaults());
  private final ArrayChunks arrayChunks = new ArrayChunks(ContentChunker.defaults());
  private final Executor inOrder;
  private final Executor loop;
  private final Map<Long, Cutting> ahead = new HashMap<>();
  private final AtomicLong cutsMade = new AtomicLong();

  /**
   * @param chunking where states are cut and hashed; this cutter's run one at a time there
   * @param loop the worker's loop, where results are handed back
   */
  StateCutter(Executor chunking, Executor loop) {
    this.inOrder = MoreExecutors.newSequentialExecutor(chunking);
    this.loop = loop;
  }

  /**
   * Starts cutting {@code state}, captured for {@code snapshotId}; on the loop. False when the
   * chunking threads are stopping. The caller forgets the cuts that no upload will take.
   */
  boolean captured(long snapshotId, CapturedState state) {
    Cutting c = new Cutting(state);
    if (!submit(c)) {
      return false;
    }
    ahead.put(snapshotId, c);
    return true;
  }

  /**
   * Forgets the cutting of a snapshot that will not be uploaded; on the loop. One that has not
   * begun will not, and lets go of its state now.
   */
  void forget(long snapshotId) {
    Cutting c = ahead.remove(snapshotId);
    if (c != null) {
      c.state.set(null);
    }
  }

  /**
   * Hands {@code state}'s chunks to {@code onCut}, or why cutting it failed to {@code onFailure},
   * on the loop and never before this returns: the cut begun at its capture, or one begun now.
   * False when the chunking threads are stopping.
   */
  boolean cut(
      long snapshotId,
      CapturedState state,
      Consumer<Cut> onCut,
      Consumer<RuntimeException> onFailure) {
    Cutting c = ahead.remove(snapshotId);
    if (c == null) {
      c = new Cutting(state);
      if (!submit(c)) {
        return false;
      }
    }
    Cutting taking = c;
    loop.execute(() -> taking.take(onCut, onFailure));
    return true;
  }

  /** States cut so far (for tests); any thread. */
  long cutsMade() {
    return cutsMade.get();
  }

  /** Snapshots whose states are being cut or were, ahead of their uploads (for tests). */
  List<Long> ahead() {
    return new ArrayList<>(ahead.keySet());
  }

  private boolean submit(Cutting c) {
    try {
      inOrder.execute(() -> cutNow(c));
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  /**
   * On a chunking thread: cuts {@code c}'s state, unless it was forgotten first, and hands the cut
   * or the failure back to the loop. An error (out of memory, say) is logged and handed back as a
   * failure too, so that the upload waiting for it ends; it is not thrown on, which would leave the
   * cuts queued behind it waiting for the next one to be submitted.
   */
  private void cutNow(Cutting c) {
    CapturedState state = c.state.getAndSet(null);
    if (state == null) {
      return; // forgotten before its turn
    }
    long began = System.nanoTime();
    Cut cut = null;
    RuntimeException failure = null;
    try {
      StateContent content =
          state.isKeyed()
              ? keyedChunks.content(state.entries())
              : arrayChunks.content(state.state());
      cut = new Cut(content, began, System.nanoTime());
      cutsMade.incrementAndGet();
    } catch (RuntimeException e) {
      failure = e;
    } catch (Error e) {
      log.error("cutting a captured state failed", e);
      failure = new IllegalStateException(e.toString(), e);
    }
    Cut result = cut;
    RuntimeException failed = failure;
    loop.execute(() -> c.done(result, failed));
  }
}
