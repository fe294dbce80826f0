package io.cutpoint.client.session;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.WorkerMessage;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.concurrent.CompletableFuture;

/**
 * One attempt at a session: a single {@code Session} call. Sends come from the worker's event loop,
 * and the half-close and cancel of {@code close()} from the closing thread: they are serialised,
 * and become no-ops once the call has ended or was half-closed. Inbound events arrive on a
 * transport thread and go to {@link Events}, which hands them to the loop.
 */
final class SessionAttempt implements ClientResponseObserver<WorkerMessage, CoordinatorMessage> {

  /** Where a stream's inbound events go; called on the transport's thread. */
  interface Events {
    void message(SessionAttempt stream, CoordinatorMessage message);

    void ended(SessionAttempt stream, Status status);
  }

  private final long generation;
  private final Events events;
  private final CompletableFuture<Status> terminated = new CompletableFuture<>();
  private ClientCallStreamObserver<WorkerMessage> requests;
  private boolean closedForSending;
  private volatile boolean welcomed;

  SessionAttempt(long generation, Events events) {
    this.generation = generation;
    this.events = events;
  }

  long generation() {
    return generation;
  }

  boolean welcomed() {
    return welcomed;
  }

  void markWelcomed() {
    welcomed = true;
  }

  /** Completes with the call's final status (OK when the coordinator completed it). */
  CompletableFuture<Status> terminated() {
    return terminated;
  }

  @Override
  public synchronized void beforeStart(ClientCallStreamObserver<WorkerMessage> r) {
    requests = r;
  }

  /** Sends {@code message}; false when the stream can no longer send. */
  synchronized boolean send(WorkerMessage message) {
    if (closedForSending || requests == null) {
      return false;
    }
    try {
      requests.onNext(message);
      return true;
    } catch (RuntimeException e) { // the call ended under us
      closedForSending = true;
      return false;
    }
  }

  /** Tells the coordinator the worker is leaving (half-close); the call ends when it answers. */
  synchronized void halfClose() {
    if (!closedForSending && requests != null) {
      closedForSending = true;
      try {
        requests.onCompleted();
      } catch (RuntimeException e) {
        // a call that never started (its start failed) or already ended has nothing to half-close
      }
    }
  }

  /** Ends the call now; the coordinator sees CANCELLED. */
  synchronized void cancel(String why) {
    closedForSending = true;
    if (requests != null && !terminated.isDone()) {
      requests.cancel(why, null);
    }
  }

  @Override
  public void onNext(CoordinatorMessage message) {
    events.message(this, message);
  }

  @Override
  public void onError(Throwable t) {
    end(Status.fromThrowable(t));
  }

  @Override
  public void onCompleted() {
    end(Status.OK);
  }

  private void end(Status status) {
    synchronized (this) {
      closedForSending = true;
    }
    terminated.complete(status);
    events.ended(this, status);
  }

  @Override
  public String toString() {
    return "session stream #" + generation;
  }
}
