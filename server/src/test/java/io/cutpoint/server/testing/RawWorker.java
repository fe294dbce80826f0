package io.cutpoint.server.testing;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.api.v1.Heartbeat;
import io.cutpoint.api.v1.Join;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.StateChunk;
import io.cutpoint.api.v1.UploadHeader;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.api.v1.UploadTrailer;
import io.cutpoint.api.v1.WorkerMessage;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.zip.CRC32C;

/** A worker speaking the raw protocol: a session stream and uploads built by hand. */
public final class RawWorker implements AutoCloseable {

  public final String id;

  /** Messages not yet taken by {@link #await}. */
  public final BlockingQueue<CoordinatorMessage> received = new LinkedBlockingQueue<>();

  /** Every message received, in order, including those {@link #await} skipped. */
  private final List<CoordinatorMessage> history =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  public final CompletableFuture<Status> ended = new CompletableFuture<>();
  private final CoordinatorGrpc.CoordinatorStub stub;
  private StreamObserver<WorkerMessage> out;
  private volatile String secret = "";

  /** The last welcomed RawWorker of each id, whose secret {@link #send} attaches. */
  private static final java.util.Map<String, RawWorker> WELCOMED =
      new java.util.concurrent.ConcurrentHashMap<>();

  public RawWorker(CoordinatorGrpc.CoordinatorStub stub, String id) {
    this.stub = stub;
    this.id = id;
  }

  /** Opens the session and sends the join. */
  public RawWorker join(List<String> outgoing, List<String> incoming) {
    return join(
        Join.newBuilder()
            .setWorkerId(id)
            .setChannelAddress("localhost:7000")
            .addAllOutgoing(outgoing)
            .addAllIncoming(incoming)
            .build());
  }

  public RawWorker join(Join join) {
    out =
        stub.session(
            new StreamObserver<>() {
              @Override
              public void onNext(CoordinatorMessage m) {
                if (m.hasWelcome()) {
                  secret = m.getWelcome().getSessionSecret();
                  WELCOMED.put(id, RawWorker.this);
                }
                receive(m);
              }

              @Override
              public void onError(Throwable t) {
                ended.complete(Status.fromThrowable(t));
              }

              @Override
              public void onCompleted() {
                ended.complete(Status.OK);
              }
            });
    send(WorkerMessage.newBuilder().setJoin(join).build());
    return this;
  }

  /** Takes in a message from the coordinator (for a test that reads the stream itself). */
  public void receive(CoordinatorMessage m) {
    history.add(m);
    received.add(m);
  }

  /** Every message received so far, including those that {@link #await} skipped. */
  public List<CoordinatorMessage> history() {
    return List.copyOf(history);
  }

  public synchronized void send(WorkerMessage m) {
    out.onNext(m);
  }

  public void heartbeat() {
    send(
        WorkerMessage.newBuilder()
            .setHeartbeat(Heartbeat.newBuilder().setSentAtUnixMs(System.currentTimeMillis()))
            .build());
  }

  /** The next received message matching {@code p}, skipping others; fails after 10 s. */
  public CoordinatorMessage await(Predicate<CoordinatorMessage> p) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      CoordinatorMessage m =
          received.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (m == null) {
        throw new AssertionError(id + ": no matching message within 10 s");
      }
      if (p.test(m)) {
        return m;
      }
    }
  }

  /** The status the session ended with, waiting up to 10 s. */
  public Status endStatus() throws Exception {
    return ended.get(10, TimeUnit.SECONDS);
  }

  /** The session secret of the last welcome ("" before one). */
  public String secret() {
    return secret;
  }

  /** The stub with this session's secret on every call, as a worker uploads and downloads. */
  public CoordinatorGrpc.CoordinatorStub transfers() {
    return withSecret(stub, secret);
  }

  /** {@code stub} with {@code secret} as the session secret on every call. */
  public static CoordinatorGrpc.CoordinatorStub withSecret(
      CoordinatorGrpc.CoordinatorStub stub, String secret) {
    io.grpc.Metadata md = new io.grpc.Metadata();
    md.put(
        io.grpc.Metadata.Key.of(
            "cutpoint-session-secret", io.grpc.Metadata.ASCII_STRING_MARSHALLER),
        secret);
    return stub.withInterceptors(io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(md));
  }

  /** The blocking stub with this session's secret on every call. */
  public CoordinatorGrpc.CoordinatorBlockingStub blockingTransfers(io.grpc.Channel channel) {
    io.grpc.Metadata md = new io.grpc.Metadata();
    md.put(
        io.grpc.Metadata.Key.of(
            "cutpoint-session-secret", io.grpc.Metadata.ASCII_STRING_MARSHALLER),
        secret);
    return CoordinatorGrpc.newBlockingStub(channel)
        .withInterceptors(io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(md));
  }

  /** A request for this worker's piece of {@code snapshot}. */
  public DownloadRequest downloadRequest(long snapshot) {
    return DownloadRequest.newBuilder().setSnapshotId(snapshot).setWorkerId(id).build();
  }

  /** Builds the parts of an upload of {@code state} and the given recordings. */
  public static List<UploadPart> upload(
      LocalSnapshotMeta.Builder meta,
      byte[] state,
      int chunkSize,
      List<ChannelRecording> recordings) {
    CRC32C whole = new CRC32C();
    whole.update(state);
    meta.setStateBytes(state.length).setStateCrc32C((int) whole.getValue());
    List<UploadPart> parts = new java.util.ArrayList<>();
    parts.add(UploadPart.newBuilder().setHeader(UploadHeader.newBuilder().setMeta(meta)).build());
    int index = 0;
    for (int off = 0; off < state.length; off += chunkSize) {
      byte[] data =
          java.util.Arrays.copyOfRange(state, off, Math.min(state.length, off + chunkSize));
      parts.add(chunk(index++, data));
    }
    long messages = 0;
    for (ChannelRecording r : recordings) {
      parts.add(UploadPart.newBuilder().setChannel(r).build());
      messages += r.getMessagesCount();
    }
    parts.add(
        UploadPart.newBuilder()
            .setTrailer(
                UploadTrailer.newBuilder().setStateChunks(index).setRecordedMessages(messages))
            .build());
    return parts;
  }

  public static UploadPart chunk(int index, byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data);
    return UploadPart.newBuilder()
        .setStateChunk(
            StateChunk.newBuilder()
                .setIndex(index)
                .setData(ByteString.copyFrom(data))
                .setCrc32C((int) crc.getValue()))
        .build();
  }

  /**
   * {@code parts} with one bit of byte {@code at} of the state chunk at {@code part} flipped; the
   * chunk keeps the CRC32C of the bytes before, as a fault on the way would leave it.
   */
  public static List<UploadPart> withFlippedBit(List<UploadPart> parts, int part, int at) {
    List<UploadPart> out = new java.util.ArrayList<>(parts);
    UploadPart chunk = out.get(part);
    byte[] data = chunk.getStateChunk().getData().toByteArray();
    data[at] ^= 0x10;
    out.set(
        part,
        chunk.toBuilder()
            .setStateChunk(chunk.getStateChunk().toBuilder().setData(ByteString.copyFrom(data)))
            .build());
    return out;
  }

  public static LocalSnapshotMeta.Builder meta(long snapshot, String worker) {
    return LocalSnapshotMeta.newBuilder().setSnapshotId(snapshot).setWorkerId(worker);
  }

  public static ChannelCounter counter(String peer, long n) {
    return ChannelCounter.newBuilder().setPeer(peer).setCount(n).build();
  }

  /**
   * Sends {@code parts} on a new upload call as the worker the header names would: with the session
   * secret of the last welcomed RawWorker of that id, if any. Completes with the result or the
   * error status.
   */
  public static CompletableFuture<UploadResult> send(
      CoordinatorGrpc.CoordinatorStub stub, Iterable<UploadPart> parts) {
    java.util.Iterator<UploadPart> it = parts.iterator();
    if (it.hasNext() && it.next().hasHeader()) {
      RawWorker w = WELCOMED.get(parts.iterator().next().getHeader().getMeta().getWorkerId());
      if (w != null) {
        return sendRaw(withSecret(stub, w.secret), parts);
      }
    }
    return sendRaw(stub, parts);
  }

  /** Sends {@code parts} on a new upload call of {@code stub}, adding nothing. */
  public static CompletableFuture<UploadResult> sendRaw(
      CoordinatorGrpc.CoordinatorStub stub, Iterable<UploadPart> parts) {
    CompletableFuture<UploadResult> result = new CompletableFuture<>();
    StreamObserver<UploadPart> up =
        stub.uploadSnapshot(
            new StreamObserver<>() {
              @Override
              public void onNext(UploadResult r) {
                result.complete(r);
              }

              @Override
              public void onError(Throwable t) {
                result.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                result.completeExceptionally(new AssertionError("completed without a result"));
              }
            });
    try {
      for (UploadPart p : parts) {
        up.onNext(p);
      }
      up.onCompleted();
    } catch (RuntimeException e) {
      // the call was closed by the server; the result carries why
    }
    return result;
  }

  @Override
  public synchronized void close() {
    WELCOMED.remove(id, this);
    if (out != null && !ended.isDone()) {
      try {
        out.onCompleted();
      } catch (RuntimeException ignored) {
        // already closed
      }
    }
  }
}
