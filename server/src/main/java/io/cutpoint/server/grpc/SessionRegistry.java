package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.AbortSnapshot;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.StartSnapshot;
import io.cutpoint.server.lifecycle.WorkerCommands;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Live session streams by worker id; sends the lifecycle's commands to workers. */
public final class SessionRegistry implements WorkerCommands {

  private final Map<String, LiveSession> sessions = new ConcurrentHashMap<>();
  private final java.security.SecureRandom random = new java.security.SecureRandom();

  /**
   * Registers a live session (replacing none: the membership refuses a second live one) with a
   * fresh random secret of 256 bits.
   */
  public LiveSession register(
      String workerId, long token, io.grpc.stub.StreamObserver<CoordinatorMessage> out) {
    byte[] secret = new byte[32];
    random.nextBytes(secret);
    LiveSession s =
        new LiveSession(workerId, token, java.util.HexFormat.of().formatHex(secret), out);
    sessions.put(workerId, s);
    return s;
  }

  /** Removes the session of {@code workerId} if it is the one with {@code token}. */
  public Optional<LiveSession> remove(String workerId, long token) {
    LiveSession s = sessions.get(workerId);
    if (s != null && s.token() == token && sessions.remove(workerId, s)) {
      return Optional.of(s);
    }
    return Optional.empty();
  }

  public Optional<LiveSession> get(String workerId) {
    return Optional.ofNullable(sessions.get(workerId));
  }

  /** Sends {@code message} to {@code workerId}; false when it has no live session. */
  public boolean send(String workerId, CoordinatorMessage message) {
    LiveSession s = sessions.get(workerId);
    return s != null && s.send(message);
  }

  @Override
  public void startSnapshot(String workerId, long snapshotId, long epoch) {
    send(
        workerId,
        CoordinatorMessage.newBuilder()
            .setStartSnapshot(StartSnapshot.newBuilder().setSnapshotId(snapshotId).setEpoch(epoch))
            .build());
  }

  @Override
  public void abortSnapshot(String workerId, long snapshotId, String reason) {
    send(
        workerId,
        CoordinatorMessage.newBuilder()
            .setAbortSnapshot(
                AbortSnapshot.newBuilder().setSnapshotId(snapshotId).setReason(reason))
            .build());
  }

  /** Ends every session (shutdown): workers reconnect to the next coordinator by themselves. */
  public void closeAll(Status status) {
    List<LiveSession> all = new ArrayList<>(sessions.values());
    sessions.clear();
    all.forEach(s -> s.close(status));
  }
}
