package io.cutpoint.client.session;

import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.api.v1.Join;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.api.v1.Welcome;
import io.cutpoint.api.v1.WorkerMessage;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scriptable Coordinator service: records what workers send, answers joins with a configurable
 * welcome (or refusals queued in {@link #refusals}), lets the test push commands, collects uploads
 * and serves downloads from {@link #downloads}.
 */
final class FakeCoordinator extends CoordinatorGrpc.CoordinatorImplBase {

  /** One finished or running upload. */
  static final class Upload {
    final List<UploadPart> parts = new CopyOnWriteArrayList<>();
    volatile Status status;
    volatile ServerCallStreamObserver<UploadResult> call;
  }

  final List<Join> joins = new CopyOnWriteArrayList<>();
  final List<WorkerMessage> messages = new CopyOnWriteArrayList<>();
  final Queue<Status> refusals = new ConcurrentLinkedQueue<>();
  final List<Upload> uploads = new CopyOnWriteArrayList<>();

  /** Per snapshot id, the downloads to serve, one list per request, in order; the last repeats. */
  final Map<Long, List<List<DownloadPart>>> downloads = new ConcurrentHashMap<>();

  final AtomicInteger downloadRequests = new AtomicInteger();
  final AtomicInteger leaves = new AtomicInteger();

  /** The next this-many joins get no answer at all. */
  final AtomicInteger ignoreJoins = new AtomicInteger();

  volatile Welcome welcome = Welcome.newBuilder().setEpoch(0).setHeartbeatIntervalMs(50).build();

  /** The leader term on the welcome (0 = none). */
  volatile long term;

  /** When > 0, uploads use manual flow control and start by requesting this many parts. */
  volatile int manualUploadWindow;

  /** When set, uploads end with this status instead of a result. */
  volatile Status failUploads;

  /**
   * Positions of the content chunks that {@code FindChunks} says are held; null: the fake does not
   * implement {@code FindChunks} (a coordinator from before content addressing).
   */
  volatile java.util.Set<Integer> heldChunks;

  final List<io.cutpoint.api.v1.ChunkQuery> chunkQueries = new CopyOnWriteArrayList<>();

  /**
   * When set, the fake holds content chunks as a store does: {@code FindChunks} answers by SHA-256
   * from this set, and each upload adds the SHA-256 of every content chunk it carried. Tests may
   * add or remove hashes. Takes precedence over {@link #heldChunks}.
   */
  volatile java.util.Set<com.google.protobuf.ByteString> heldHashes;

  /** The next this-many {@code FindChunks} calls fail with UNAVAILABLE (recorded all the same). */
  final AtomicInteger failFindChunks = new AtomicInteger();

  private volatile StreamObserver<CoordinatorMessage> current;

  /** Pushes a command on the live session. */
  synchronized void send(CoordinatorMessage message) {
    StreamObserver<CoordinatorMessage> s = current;
    if (s == null) {
      throw new IllegalStateException("no live session");
    }
    s.onNext(message);
  }

  boolean live() {
    return current != null;
  }

  /** Starts snapshot {@code id} in epoch 0 on the live session. */
  void startSnapshot(long id) {
    send(
        CoordinatorMessage.newBuilder()
            .setStartSnapshot(
                io.cutpoint.api.v1.StartSnapshot.newBuilder().setSnapshotId(id).setEpoch(0))
            .build());
  }

  /** True once exactly {@code n} uploads arrived and every one ended OK. */
  boolean uploadedOk(int n) {
    return uploads.size() == n
        && uploads.stream().allMatch(u -> u.status != null && u.status.isOk());
  }

  List<WorkerMessage> received(WorkerMessage.BodyCase kind) {
    List<WorkerMessage> out = new ArrayList<>();
    for (WorkerMessage m : messages) {
      if (m.getBodyCase() == kind) {
        out.add(m);
      }
    }
    return out;
  }

  @Override
  public StreamObserver<WorkerMessage> session(StreamObserver<CoordinatorMessage> responses) {
    return new StreamObserver<>() {
      private boolean joined;

      @Override
      public void onNext(WorkerMessage m) {
        messages.add(m);
        if (!joined) {
          if (!m.hasJoin()) {
            responses.onError(
                Status.INVALID_ARGUMENT.withDescription("join first").asRuntimeException());
            return;
          }
          joins.add(m.getJoin());
          if (ignoreJoins.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return;
          }
          Status refusal = refusals.poll();
          if (refusal != null) {
            responses.onError(refusal.asRuntimeException());
            return;
          }
          joined = true;
          synchronized (FakeCoordinator.this) {
            current = responses;
            responses.onNext(
                CoordinatorMessage.newBuilder().setWelcome(welcome).setTerm(term).build());
          }
        }
      }

      @Override
      public void onError(Throwable t) {
        drop();
      }

      @Override
      public void onCompleted() {
        leaves.incrementAndGet();
        drop();
        synchronized (FakeCoordinator.this) {
          responses.onCompleted();
        }
      }

      private void drop() {
        synchronized (FakeCoordinator.this) {
          if (current == responses) {
            current = null;
          }
        }
      }
    };
  }

  @Override
  public void findChunks(
      io.cutpoint.api.v1.ChunkQuery query,
      StreamObserver<io.cutpoint.api.v1.ChunkAnswer> responses) {
    java.util.Set<com.google.protobuf.ByteString> hashes = heldHashes;
    if (hashes != null) {
      chunkQueries.add(query);
      if (failFindChunks.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        responses.onError(Status.UNAVAILABLE.withDescription("scripted").asRuntimeException());
        return;
      }
      io.cutpoint.api.v1.ChunkAnswer.Builder answer = io.cutpoint.api.v1.ChunkAnswer.newBuilder();
      for (int i = 0; i < query.getSha256Count(); i++) {
        if (!hashes.contains(query.getSha256(i))) {
          answer.addMissing(i);
        }
      }
      responses.onNext(answer.build());
      responses.onCompleted();
      return;
    }
    java.util.Set<Integer> held = heldChunks;
    if (held == null) {
      super.findChunks(query, responses);
      return;
    }
    chunkQueries.add(query);
    io.cutpoint.api.v1.ChunkAnswer.Builder answer = io.cutpoint.api.v1.ChunkAnswer.newBuilder();
    for (int i = 0; i < query.getSha256Count(); i++) {
      if (!held.contains(i)) {
        answer.addMissing(i);
      }
    }
    responses.onNext(answer.build());
    responses.onCompleted();
  }

  @Override
  public StreamObserver<UploadPart> uploadSnapshot(StreamObserver<UploadResult> responses) {
    Upload upload = new Upload();
    ServerCallStreamObserver<UploadResult> call =
        (ServerCallStreamObserver<UploadResult>) responses;
    upload.call = call;
    int window = manualUploadWindow;
    if (window > 0) {
      call.disableAutoRequest();
      call.request(window);
    }
    uploads.add(upload);
    return new StreamObserver<>() {
      @Override
      public void onNext(UploadPart part) {
        upload.parts.add(part);
      }

      @Override
      public void onError(Throwable t) {
        upload.status = Status.fromThrowable(t);
      }

      @Override
      public void onCompleted() {
        Status failure = failUploads;
        if (failure != null) {
          upload.status = failure;
          responses.onError(failure.asRuntimeException());
          return;
        }
        long bytes = 0;
        java.util.Set<com.google.protobuf.ByteString> hashes = heldHashes;
        for (UploadPart p : upload.parts) {
          bytes += p.getStateChunk().getData().size();
          if (hashes != null && p.hasStateChunk()) {
            hashes.add(
                com.google.protobuf.ByteString.copyFrom(
                    io.cutpoint.api.Sha256.of(p.getStateChunk().getData().toByteArray())));
          }
        }
        upload.status = Status.OK;
        responses.onNext(UploadResult.newBuilder().setStoredStateBytes(bytes).build());
        responses.onCompleted();
      }
    };
  }

  @Override
  public void downloadSnapshot(DownloadRequest request, StreamObserver<DownloadPart> responses) {
    int n = downloadRequests.getAndIncrement();
    List<List<DownloadPart>> scripted = downloads.get(request.getSnapshotId());
    if (scripted == null || scripted.isEmpty()) {
      responses.onError(
          Status.NOT_FOUND
              .withDescription("no snapshot " + request.getSnapshotId())
              .asRuntimeException());
      return;
    }
    for (DownloadPart p : scripted.get(Math.min(n, scripted.size() - 1))) {
      responses.onNext(p);
    }
    responses.onCompleted();
  }
}
