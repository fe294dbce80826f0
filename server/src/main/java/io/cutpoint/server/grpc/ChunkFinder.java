package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.ChunkAnswer;
import io.cutpoint.api.v1.ChunkQuery;
import io.cutpoint.server.CoordinatorContext;
import io.cutpoint.server.lifecycle.PendingManifest;
import io.cutpoint.server.lifecycle.SnapshotLifecycle;
import io.cutpoint.server.membership.WorkerIds;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.NoSuchSnapshotException;
import io.cutpoint.storage.NotPendingException;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;

/**
 * Answers {@code FindChunks}: which content chunks of a worker's state the store lacks, so that the
 * upload that follows sends only those. The store keeps the ones it has for the snapshot until the
 * snapshot ends.
 *
 * <p>Threads: the query is checked and answered on its handler thread ({@code cutpoint-grpc-N}),
 * after checking the caller's own session and that the snapshot is pending and covers the worker,
 * so that the queries of several workers read the store in parallel. A query that comes before the
 * store holds the snapshot's pending manifest (the workers start before it is written) is answered
 * on {@code cutpoint-store}, behind that manifest.
 */
final class ChunkFinder {

  /** Most hashes one query may list: a 4 GiB state at 64 KiB per chunk. */
  static final int MAX_HASHES = 65_536;

  private final CoordinatorContext ctx;

  ChunkFinder(CoordinatorContext ctx) {
    this.ctx = ctx;
  }

  void find(ChunkQuery query, StreamObserver<ChunkAnswer> out) {
    try {
      check(query);
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    }
    // Here, in parallel with the other workers' queries; one that came before the snapshot's
    // pending manifest was written waits for it on cutpoint-store.
    if (!answer(ctx.store(), query, out, true)) {
      ctx.storeIo().writePiece(store -> answer(store, query, out, false));
    }
  }

  /**
   * Holds the chunks the store has for the snapshot and answers with the others; false, without an
   * answer, if {@code early} and the store does not hold the snapshot as pending. The loop listed
   * it as pending, so the store has not finished opening it yet (or it ended meanwhile): only
   * {@code cutpoint-store}, behind the pending manifest, can tell which. A worker takes NOT_FOUND
   * and FAILED_PRECONDITION for "the snapshot ended" and drops it without a word.
   */
  private boolean answer(
      SnapshotStore store, ChunkQuery query, StreamObserver<ChunkAnswer> out, boolean early) {
    long id = query.getSnapshotId();
    Status failure;
    try {
      boolean[] held = store.holdChunks(id, query.getSha256List());
      ChunkAnswer.Builder answer = ChunkAnswer.newBuilder();
      for (int i = 0; i < held.length; i++) {
        if (!held[i]) {
          answer.addMissing(i);
        }
      }
      ctx.metrics().chunksFound(held.length, held.length - answer.getMissingCount());
      reply(out, answer.build());
      return true;
    } catch (NoSuchSnapshotException e) {
      if (early) {
        return false;
      }
      failure = Status.NOT_FOUND.withDescription("no pending snapshot " + id);
    } catch (NotPendingException e) {
      if (early) {
        return false; // e.g. the object store's manifest written, the snapshot not yet open there
      }
      failure =
          Status.FAILED_PRECONDITION.withDescription("snapshot " + id + " is no longer pending");
    } catch (IllegalArgumentException e) {
      failure = Status.INVALID_ARGUMENT.withDescription(e.getMessage());
    } catch (CorruptionException e) {
      // not a passing failure, and not an unreachable coordinator: a worker's session takes
      // UNAVAILABLE for that and looks for another leader
      failure =
          Status.DATA_LOSS.withDescription(
              e.getMessage() + "; snapshots that use it fail until `cutpoint store repair`");
    } catch (StoreException e) {
      failure = Status.UNAVAILABLE.withDescription(e.getMessage());
    }
    try {
      out.onError(failure.asRuntimeException());
    } catch (RuntimeException cancelled) {
      // the caller went away
    }
    return true;
  }

  private static void reply(StreamObserver<ChunkAnswer> out, ChunkAnswer answer) {
    try {
      out.onNext(answer);
      out.onCompleted();
    } catch (RuntimeException cancelled) {
      // the caller went away; what the store holds is released when the snapshot ends
    }
  }

  private void check(ChunkQuery query) {
    long id = query.getSnapshotId();
    if (id <= 0) {
      throw invalid("the query has no snapshot id");
    }
    WorkerIds.problem(query.getWorkerId())
        .ifPresent(
            p -> {
              throw invalid("query: " + p);
            });
    if (query.getSha256Count() > MAX_HASHES) {
      throw invalid("the query lists " + query.getSha256Count() + " chunks; at most " + MAX_HASHES);
    }
    for (int i = 0; i < query.getSha256Count(); i++) {
      if (query.getSha256(i).size() != 32) {
        throw invalid(
            "hash " + i + " has " + query.getSha256(i).size() + " bytes; a SHA-256 has 32");
      }
    }
    OwnSession.require(ctx, query.getWorkerId(), "find chunks");
    SnapshotLifecycle.View view = ctx.lifecycle().view();
    PendingManifest snap = view.pending().get(id);
    if (snap == null) {
      throw view.ended(id)
          ? Status.FAILED_PRECONDITION
              .withDescription("snapshot " + id + " is no longer pending")
              .asRuntimeException()
          : Status.NOT_FOUND.withDescription("no pending snapshot " + id).asRuntimeException();
    }
    if (!snap.covers(query.getWorkerId())) {
      throw Status.PERMISSION_DENIED
          .withDescription("snapshot " + id + " does not cover worker " + query.getWorkerId())
          .asRuntimeException();
    }
  }

  private static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }
}
