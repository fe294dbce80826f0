package io.cutpoint.server.grpc;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One upload at a time per worker's piece of a snapshot, claimed on the thread that receives the
 * upload's header, with no round trip to the coordinator loop. Only the claimant stores parts of
 * the piece and tells the loop of it, so two uploads of one piece never interleave their parts in
 * the store. The claimant gives the claim up once the loop has taken its piece or refused it (after
 * the loop's view shows the piece, so a later upload sees it delivered), or when it breaks, after
 * it has handed the store the discard of what it stored.
 *
 * <p>Thread-safe: the receiving threads claim and release, the loop releases.
 */
final class UploadClaims {

  private record Key(long snapshotId, String workerId) {}

  private final ConcurrentHashMap<Key, Object> claims = new ConcurrentHashMap<>();

  /** Gives {@code upload} the piece; false when another upload holds it. */
  boolean claim(long snapshotId, String workerId, Object upload) {
    return claims.putIfAbsent(new Key(snapshotId, workerId), upload) == null;
  }

  /** Frees the piece, if {@code upload} holds it. */
  void release(long snapshotId, String workerId, Object upload) {
    claims.remove(new Key(snapshotId, workerId), upload);
  }

  /** Pieces claimed now. */
  int size() {
    return claims.size();
  }
}
