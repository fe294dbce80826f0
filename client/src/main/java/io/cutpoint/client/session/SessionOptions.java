package io.cutpoint.client.session;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of a {@link CoordinatorSession}. Start from {@link #defaults()} and change what you need
 * with the {@code with...} methods.
 *
 * @param heartbeatInterval how often to heartbeat; {@code null} uses the interval the coordinator
 *     sends in {@code Welcome} (or {@link #FALLBACK_HEARTBEAT} when it sends 0)
 * @param reconnectInitial first delay before re-joining after the stream broke or a join was
 *     refused with ALREADY_EXISTS; doubles per failed attempt
 * @param reconnectMax cap of the reconnect delay
 * @param joinTimeout how long to wait for {@code welcome} before giving up the attempt
 * @param uploadChunkBytes size of the state chunks, and the most recorded-message payload per
 *     {@code ChannelRecording} part (a single larger message still goes alone), of an upload
 * @param uploadQueue how many completed local snapshots may wait for the upload thread; more are
 *     refused and reported to the coordinator as {@code snapshot_failed}
 * @param transferTimeout deadline of one upload or download RPC
 * @param closeTimeout how long {@link CoordinatorSession#close()} waits for each stage
 * @param clock wall clock for heartbeat timestamps
 * @param contentChunks whether a state is uploaded as content-defined chunks named by their
 *     SHA-256, of which only those the coordinator lacks are sent (the default); false sends every
 *     state byte in {@code uploadChunkBytes} chunks
 */
public record SessionOptions(
    Duration heartbeatInterval,
    Duration reconnectInitial,
    Duration reconnectMax,
    Duration joinTimeout,
    int uploadChunkBytes,
    int uploadQueue,
    Duration transferTimeout,
    Duration closeTimeout,
    Clock clock,
    boolean contentChunks) {

  /** Used when the coordinator's {@code Welcome} carries no heartbeat interval. */
  public static final Duration FALLBACK_HEARTBEAT = Duration.ofSeconds(1);

  /** 1 MiB, the wire limit of a {@code StateChunk}. */
  public static final int MAX_CHUNK_BYTES = 1 << 20;

  public SessionOptions {
    positive(reconnectInitial, "reconnectInitial");
    positive(reconnectMax, "reconnectMax");
    positive(joinTimeout, "joinTimeout");
    positive(transferTimeout, "transferTimeout");
    positive(closeTimeout, "closeTimeout");
    if (heartbeatInterval != null) {
      positive(heartbeatInterval, "heartbeatInterval");
    }
    if (reconnectMax.compareTo(reconnectInitial) < 0) {
      throw new IllegalArgumentException(
          "reconnectMax " + reconnectMax + " is below reconnectInitial " + reconnectInitial);
    }
    if (uploadChunkBytes < 1 || uploadChunkBytes > MAX_CHUNK_BYTES) {
      throw new IllegalArgumentException(
          "uploadChunkBytes must be in 1.." + MAX_CHUNK_BYTES + ", got " + uploadChunkBytes);
    }
    if (uploadQueue < 1) {
      throw new IllegalArgumentException("uploadQueue must be at least 1, got " + uploadQueue);
    }
    Objects.requireNonNull(clock, "clock");
  }

  /**
   * Heartbeat from {@code Welcome}, reconnect 100 ms doubling to 10 s, join timeout 10 s, 1 MiB
   * chunks, 4 queued uploads, 10 min per transfer, 5 s per close stage, the system UTC clock,
   * content-addressed chunks.
   */
  public static SessionOptions defaults() {
    return new SessionOptions(
        null,
        Duration.ofMillis(100),
        Duration.ofSeconds(10),
        Duration.ofSeconds(10),
        MAX_CHUNK_BYTES,
        4,
        Duration.ofMinutes(10),
        Duration.ofSeconds(5),
        Clock.systemUTC(),
        true);
  }

  public SessionOptions withHeartbeatInterval(Duration interval) {
    return new SessionOptions(
        interval,
        reconnectInitial,
        reconnectMax,
        joinTimeout,
        uploadChunkBytes,
        uploadQueue,
        transferTimeout,
        closeTimeout,
        clock,
        contentChunks);
  }

  public SessionOptions withReconnect(Duration initial, Duration max) {
    return new SessionOptions(
        heartbeatInterval,
        initial,
        max,
        joinTimeout,
        uploadChunkBytes,
        uploadQueue,
        transferTimeout,
        closeTimeout,
        clock,
        contentChunks);
  }

  public SessionOptions withJoinTimeout(Duration timeout) {
    return new SessionOptions(
        heartbeatInterval,
        reconnectInitial,
        reconnectMax,
        timeout,
        uploadChunkBytes,
        uploadQueue,
        transferTimeout,
        closeTimeout,
        clock,
        contentChunks);
  }

  public SessionOptions withUploadChunkBytes(int bytes) {
    return new SessionOptions(
        heartbeatInterval,
        reconnectInitial,
        reconnectMax,
        joinTimeout,
        bytes,
        uploadQueue,
        transferTimeout,
        closeTimeout,
        clock,
        contentChunks);
  }

  public SessionOptions withUploadQueue(int capacity) {
    return new SessionOptions(
        heartbeatInterval,
        reconnectInitial,
        reconnectMax,
        joinTimeout,
        uploadChunkBytes,
        capacity,
        transferTimeout,
        closeTimeout,
        clock,
        contentChunks);
  }

  public SessionOptions withTransferTimeout(Duration timeout) {
    return new SessionOptions(
        heartbeatInterval,
        reconnectInitial,
        reconnectMax,
        joinTimeout,
        uploadChunkBytes,
        uploadQueue,
        timeout,
        closeTimeout,
        clock,
        contentChunks);
  }

  public SessionOptions withCloseTimeout(Duration timeout) {
    return new SessionOptions(
        heartbeatInterval,
        reconnectInitial,
        reconnectMax,
        joinTimeout,
        uploadChunkBytes,
        uploadQueue,
        transferTimeout,
        timeout,
        clock,
        contentChunks);
  }

  public SessionOptions withClock(Clock newClock) {
    return new SessionOptions(
        heartbeatInterval,
        reconnectInitial,
        reconnectMax,
        joinTimeout,
        uploadChunkBytes,
        uploadQueue,
        transferTimeout,
        closeTimeout,
        newClock,
        contentChunks);
  }

  /** Whether states go up as content-addressed chunks (true by default). */
  public SessionOptions withContentChunks(boolean on) {
    return new SessionOptions(
        heartbeatInterval,
        reconnectInitial,
        reconnectMax,
        joinTimeout,
        uploadChunkBytes,
        uploadQueue,
        transferTimeout,
        closeTimeout,
        clock,
        on);
  }

  private static void positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + d);
    }
  }
}
