package io.cutpoint.server.grpc;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sending side of one worker's session stream. Sends are serialized (a gRPC stream observer is
 * not thread-safe) and never block; after the stream ended they are dropped. The I/O edge keeps one
 * small lock here: the coordinator loop sends, and the transport thread marks the stream ended
 * ({@link #ended()}); the monitor guards only the observer, {@code closed} and {@code held}.
 */
public final class LiveSession {

  private final String workerId;
  private final long token;
  private final String secret;
  private final StreamObserver<CoordinatorMessage> out;

  @GuardedBy("this")
  private boolean closed;

  /** Messages sent before the welcome, held until it goes out; null once welcomed. */
  @GuardedBy("this")
  private java.util.List<CoordinatorMessage> held = new java.util.ArrayList<>();

  LiveSession(String workerId, long token, String secret, StreamObserver<CoordinatorMessage> out) {
    this.workerId = workerId;
    this.token = token;
    this.secret = secret;
    this.out = out;
  }

  public String workerId() {
    return workerId;
  }

  public long token() {
    return token;
  }

  /** The secret handed out in this session's welcome. */
  public String secret() {
    return secret;
  }

  /**
   * Bytes of the pieces this session sent whole ({@link SessionPieces}) whose writes the store has
   * not yet carried out.
   */
  final AtomicLong piecesStoring = new AtomicLong();

  /**
   * True if {@code presented} is this session's secret; takes the same time wherever they differ.
   */
  public boolean secretMatches(String presented) {
    return presented != null
        && java.security.MessageDigest.isEqual(
            secret.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
            presented.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
  }

  /** Whether the welcome went out: a worker heartbeats only once welcomed. */
  public synchronized boolean welcomed() {
    return held == null;
  }

  /** Sends the welcome, then whatever was sent to this session before it. */
  public synchronized void welcome(CoordinatorMessage welcome) {
    java.util.List<CoordinatorMessage> before = held;
    held = null;
    send(welcome);
    if (before != null) {
      before.forEach(this::send);
    }
  }

  /** Queues {@code message} on the stream; false when the stream has ended. */
  public synchronized boolean send(CoordinatorMessage message) {
    if (closed) {
      return false;
    }
    if (held != null) {
      held.add(message);
      return true;
    }
    try {
      out.onNext(message);
      return true;
    } catch (RuntimeException e) {
      closed = true; // cancelled by the peer
      return false;
    }
  }

  /** Ends the stream with {@code status} (OK ends it normally); later sends are dropped. */
  public synchronized void close(Status status) {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (status.isOk()) {
        out.onCompleted();
      } else {
        out.onError(status.asRuntimeException());
      }
    } catch (RuntimeException ignored) {
      // already cancelled
    }
  }

  /** Marks the stream ended by the peer. */
  synchronized void ended() {
    closed = true;
  }
}
