package io.cutpoint.client.session;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** The worker's {@code snapshot_request}s waiting for {@code snapshot_granted}, by request id. */
final class SnapshotRequests {

  private final ConcurrentHashMap<Long, CompletableFuture<Long>> pending =
      new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();

  /** A new request id whose future is now pending. */
  long open(CompletableFuture<Long> future) {
    long id = ids.incrementAndGet();
    pending.put(id, future);
    return id;
  }

  /** Removes and returns the future of {@code requestId}; null when unknown or already ended. */
  CompletableFuture<Long> take(long requestId) {
    return pending.remove(requestId);
  }

  /** Fails every pending request: the answer can no longer come. */
  void failAll(String why) {
    for (Long id : List.copyOf(pending.keySet())) {
      CompletableFuture<Long> f = pending.remove(id);
      if (f != null) {
        f.completeExceptionally(new IllegalStateException(why));
      }
    }
  }
}
