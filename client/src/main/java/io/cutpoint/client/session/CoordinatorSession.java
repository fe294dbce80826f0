package io.cutpoint.client.session;

import com.google.common.util.concurrent.MoreExecutors;
import io.cutpoint.api.StatusText;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.Heartbeat;
import io.cutpoint.api.v1.Join;
import io.cutpoint.api.v1.LocalSnapshotFailed;
import io.cutpoint.api.v1.PieceUpload;
import io.cutpoint.api.v1.SnapshotRequest;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.client.Backoff;
import io.cutpoint.client.SharedThreads;
import io.cutpoint.client.WorkerControl;
import io.cutpoint.client.WorkerLoop;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects one worker to the coordinator over the {@code Coordinator} service and drives it through
 * {@link WorkerControl}.
 *
 * <h2>Session protocol, as this client speaks it</h2>
 *
 * <ol>
 *   <li><b>Join.</b> {@link #start()} opens a {@code Session} stream and sends {@code join} with
 *       the worker's id, channel address, outgoing and incoming peers and current epoch, and {@code
 *       fresh} = {@link WorkerControl#fresh()} (true only before the worker's first welcome or
 *       restore: a re-join after a reconnect or a coordinator restart sends false). It waits up to
 *       {@link SessionOptions#joinTimeout()} for {@code welcome}; any other first message is a
 *       protocol error that restarts the attempt.
 *   <li><b>Welcome.</b> Peers go to {@link WorkerControl#updatePeers}. If {@code halted} is set, a
 *       rollback is in progress: the worker is told {@link WorkerControl#halt halt(epoch)}, the
 *       session answers {@code halted(epoch)} and waits for {@code restore}. Otherwise, when the
 *       welcome's epoch differs from the worker's (a fresh worker joining a cluster past epoch 0,
 *       or a worker that missed a rollback), the worker moves to it with {@code halt(epoch)}
 *       followed by {@code resume(epoch)} (WorkerControl has no other way to set an epoch); and a
 *       worker this session had halted is resumed. Then the session heartbeats every {@link
 *       SessionOptions#heartbeatInterval()}, or the welcome's interval when that is null.
 *   <li><b>Commands</b>, run one at a time, in arrival order, on the worker's event loop:
 *       <ul>
 *         <li>{@code peers} &rarr; {@code updatePeers}.
 *         <li>{@code start_snapshot} &rarr; {@code startSnapshot(id)}; if its epoch is not the
 *             worker's, the session does not start it and answers {@code snapshot_failed}.
 *         <li>{@code abort_snapshot} &rarr; {@code abortSnapshot(id)}; a queued upload of that
 *             snapshot is skipped.
 *         <li>{@code halt} &rarr; {@code halt(epoch)}, then {@code halted(epoch)}.
 *         <li>{@code restore} &rarr; {@code DownloadSnapshot(snapshot_id, worker_id)}; the piece is
 *             checked (header identity, chunk order, every chunk's CRC32C, total size and
 *             whole-state CRC32C against the header, trailer counts) before {@code restore(epoch,
 *             piece, state)}, then {@code restored(epoch, snapshot_id)}. A failed or corrupt
 *             download is retried once; if it fails again nothing is restored, nothing is answered
 *             (the coordinator's rollback times out or retries), the failure is logged and reported
 *             to {@link SessionListener#restoreFailed}. Heartbeats go on during a download.
 *         <li>{@code resume} &rarr; {@code resume(epoch)}.
 *         <li>{@code snapshot_granted} &rarr; for a granted id, {@code startSnapshot(id)} and the
 *             {@link #requestSnapshot()} future completes with it; for a refusal, the future fails
 *             with {@link SnapshotRefusedException} carrying {@code refused_reason}.
 *       </ul>
 *   <li><b>Uploads.</b> The session is the worker's snapshot listener. A completed local snapshot
 *       is uploaded from the worker's event loop, one at a time (at most {@link
 *       SessionOptions#uploadQueue()} wait), with {@code UploadSnapshot}: a header ({@code
 *       LocalSnapshotMeta}: ids, the epoch the worker was in when the snapshot completed,
 *       sent/received counters, state size and CRC32C, activity, wait-for edges, recording time),
 *       state chunks of {@link SessionOptions#uploadChunkBytes()} with their CRC32C, one or more
 *       {@code ChannelRecording} parts per incoming channel (in channel order, each part at most
 *       one chunk size of payload; {@code first_marker} set on the channel whose marker made the
 *       worker record), and a trailer. Parts are produced only when the call is ready (gRPC flow
 *       control), so a large state never blocks the loop and is never copied whole (the parts wrap
 *       the captured bytes). A piece that fits in the welcome's {@code max_piece_bytes} goes whole
 *       on the session stream instead, as {@code piece} (the same parts, one message, no call), and
 *       its {@code piece_answer} ends the upload. A local failure reported by the worker, a full
 *       queue, or an upload that fails for another reason than NOT_FOUND or FAILED_PRECONDITION
 *       (snapshot no longer pending) is sent as {@code snapshot_failed}.
 *   <li><b>Reconnect.</b> When the stream ends (coordinator restart, network failure, missed join
 *       timeout, or a join refused with ALREADY_EXISTS because the old session is not yet noticed
 *       as dead), pending {@link #requestSnapshot()} futures fail, the state goes to CONNECTING,
 *       and the session re-joins after an exponential backoff (factor 2, &plusmn;20% jitter, from
 *       {@link SessionOptions#reconnectInitial()} up to {@link SessionOptions#reconnectMax()};
 *       reset by every welcome), with the worker's epoch at that time. A standby's refusal that
 *       names the leader ({@link LeaderChannel}) is followed at once, up to {@link
 *       RejoinDelay#MAX_REDIRECTS} in a row. A join refused with INVALID_ARGUMENT,
 *       FAILED_PRECONDITION, PERMISSION_DENIED, UNAUTHENTICATED or UNIMPLEMENTED is fatal: it is
 *       logged, reported to {@link SessionListener#fatal}, fails {@link #joined()} and {@link
 *       #closedFuture()}, and the state becomes CLOSED; the session then frees what it holds (and a
 *       channel it built) by itself, as {@link #close()} would.
 *   <li><b>Close.</b> {@link #close()} half-closes the stream (a graceful leave), waits for the
 *       coordinator to end it, then cancels it; cancels the upload and download in progress; closes
 *       the channel if the session built it.
 * </ol>
 *
 * <p>Threads: none of its own. Everything the session does runs on the worker's event loop ({@link
 * WorkerControl#eventLoop()}): gRPC's callbacks run on the transport's thread and hand each event
 * to the loop once; heartbeats, join timeouts and reconnect delays run on the process's shared
 * timer ({@link SharedThreads}, {@code cutpoint-timer}) and hand their work to the loop, but for
 * the heartbeat itself, which the timer sends so that a busy loop does not look like a lost worker.
 * A worker without an event loop (a test double, or a wrapper that keeps its own) gets one daemon
 * thread, {@code cutpoint-session-<worker>-events}, for the same work. The listener of the worker
 * is never blocked. Connecting and reconnecting happen in one place, {@code openStream}.
 */
public final class CoordinatorSession implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(CoordinatorSession.class);

  private final Channel channel;
  private final ManagedChannel ownedChannel;
  private final WorkerControl worker;
  private final String workerId;
  private final String threadPrefix;
  private final SessionOptions options;
  private final CoordinatorGrpc.CoordinatorStub stub;
  private final WorkerLoop loop;
  private final SessionThreads.OwnLoop ownLoop;
  private final SharedThreads shared;
  private final ScheduledExecutorService timer;
  private final UploadQueue uploads;
  private final LocalCopy localCopy; // null without local recovery
  private final CommandHandler commands;
  private final RejoinDelay rejoin;
  private final List<SessionListener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicReference<SessionState> state =
      new AtomicReference<>(SessionState.CONNECTING);
  private final CompletableFuture<Void> joined = new CompletableFuture<>();
  private final CompletableFuture<Void> closedFuture = new CompletableFuture<>();
  private final SnapshotRequests requests = new SnapshotRequests();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closeCalled = new AtomicBoolean();
  private final SessionSecret secret = new SessionSecret();

  private volatile SessionAttempt stream;
  private volatile boolean stopped;
  // The loop's (the timer tasks are also cancelled by close()):
  private long generation;
  private int maxPieceBytes; // of the welcomed stream: the largest piece sent on it
  private final ArrayDeque<Runnable> held = new ArrayDeque<>();
  private volatile ScheduledFuture<?> heartbeat;
  private volatile ScheduledFuture<?> joinTimeout;
  private volatile ScheduledFuture<?> reconnect;

  /**
   * A session over {@code channel}, which the caller owns and closes after {@link #close()}.
   * Nothing happens until {@link #start()}.
   */
  public CoordinatorSession(Channel channel, WorkerControl worker, SessionOptions options) {
    this(channel, null, worker, options);
  }

  private final TermFence terms;

  private CoordinatorSession(
      Channel channel, ManagedChannel owned, WorkerControl worker, SessionOptions options) {
    this.channel = Objects.requireNonNull(channel, "channel");
    this.ownedChannel = owned;
    this.worker = Objects.requireNonNull(worker, "worker");
    this.options = Objects.requireNonNull(options, "options");
    this.workerId = worker.workerId();
    this.terms = new TermFence(workerId);
    this.threadPrefix = "cutpoint-session-" + workerId + "-";
    WorkerLoop workerLoop = worker.eventLoop();
    this.ownLoop = workerLoop == null ? SessionThreads.ownLoop(threadPrefix + "events") : null;
    this.loop = workerLoop != null ? workerLoop : ownLoop;
    // The transport's thread runs the callbacks, which hand each event to the loop.
    this.stub = CoordinatorGrpc.newStub(channel).withExecutor(MoreExecutors.directExecutor());
    this.shared = SharedThreads.acquire();
    this.timer = shared.timer();
    this.rejoin =
        new RejoinDelay(
            new Backoff(
                options.reconnectInitial(),
                options.reconnectMax(),
                () -> ThreadLocalRandom.current().nextDouble()));
    // uploads and downloads carry the current session's secret
    Channel transfers = io.grpc.ClientInterceptors.intercept(channel, secret);
    this.localCopy =
        worker
            .localRecovery()
            .map(dir -> new LocalCopy(dir, workerId, () -> loop.execute(this::reportLocalCopy)))
            .orElse(null);
    this.uploads =
        new UploadQueue(
            workerId,
            new SnapshotUploader(
                transfers,
                loop,
                options.uploadChunkBytes(),
                options.contentChunks(),
                options.transferTimeout(),
                localCopy,
                shared.chunking(),
                new PiecesOnStream()),
            worker::epoch,
            new UploadReports(),
            loop,
            options.uploadQueue());
    this.commands =
        new CommandHandler(
            worker,
            new SnapshotDownloader(transfers, loop, options.transferTimeout(), localCopy),
            uploads,
            new Hooks());
  }

  /**
   * Builds a plaintext Netty channel to {@code target} ({@code host:port} or any gRPC target),
   * starts a session over it, and closes the channel on {@link #close()}. (A channel from {@link
   * WorkerControl#coordinatorChannel} runs on the worker's event loop instead: pass it to the
   * constructor.)
   */
  public static CoordinatorSession connect(
      String target, WorkerControl worker, SessionOptions options) {
    return connect(target, InsecureChannelCredentials.create(), worker, options);
  }

  /**
   * Like {@link #connect(String, WorkerControl, SessionOptions)}, with TLS or other credentials.
   */
  public static CoordinatorSession connect(
      String target, ChannelCredentials credentials, WorkerControl worker, SessionOptions options) {
    ManagedChannel channel = NettyChannelBuilder.forTarget(target, credentials).build();
    try {
      return new CoordinatorSession(channel, channel, worker, options).start();
    } catch (RuntimeException e) {
      channel.shutdownNow();
      throw e;
    }
  }

  /** Registers as the worker's snapshot listener and starts joining. Call once. */
  public CoordinatorSession start() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("session of worker " + workerId + " already started");
    }
    worker.setSnapshotListener(uploads);
    loop.execute(this::openStream);
    return this;
  }

  /** The newest leader term a coordinator message carried; 0 without high availability. */
  public long leaderTerm() {
    return terms.highest();
  }

  /** Coordinator messages refused because a newer leader term was seen before them. */
  public long refusedStaleTermMessages() {
    return terms.refused();
  }

  /** The current state. */
  public SessionState state() {
    return state.get();
  }

  /** Adds a listener of state changes, fatal refusals, restores and uploads. */
  public void addListener(SessionListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  public void removeListener(SessionListener listener) {
    listeners.remove(listener);
  }

  /**
   * Completes at the first {@code welcome}; fails with a {@link io.grpc.StatusException} when the
   * join is refused for good, or with {@link IllegalStateException} when closed before joining.
   */
  public CompletableFuture<Void> joined() {
    return joined.copy();
  }

  /**
   * Completes when {@link #close()} has finished; fails with a {@link io.grpc.StatusException} when
   * a fatal join refusal ended the session.
   */
  public CompletableFuture<Void> closedFuture() {
    return closedFuture.copy();
  }

  /**
   * Asks the coordinator for a snapshot that this worker initiates. On {@code snapshot_granted} the
   * worker's {@code startSnapshot(id)} is called, then the future completes with the id. It fails
   * with {@link SnapshotRefusedException} when refused, and with {@link IllegalStateException} when
   * the session is not joined or is lost before the answer.
   */
  public CompletableFuture<Long> requestSnapshot() {
    CompletableFuture<Long> future = new CompletableFuture<>();
    SessionAttempt s = stream;
    if (stopped || s == null || !s.welcomed()) {
      future.completeExceptionally(notJoined());
      return future;
    }
    if (loop.inLoop()) {
      sendRequest(future);
    } else {
      loop.execute(() -> sendRequest(future));
    }
    return future;
  }

  private IllegalStateException notJoined() {
    return new IllegalStateException(
        "worker " + workerId + " is not joined (" + state() + "); cannot request a snapshot");
  }

  /** On the loop: sends a {@code snapshot_request} whose answer completes {@code future}. */
  private void sendRequest(CompletableFuture<Long> future) {
    SessionAttempt s = stream;
    if (stopped || s == null || !s.welcomed()) {
      future.completeExceptionally(notJoined());
      return;
    }
    long requestId = requests.open(future);
    WorkerMessage request =
        WorkerMessage.newBuilder()
            .setSnapshotRequest(SnapshotRequest.newBuilder().setRequestId(requestId))
            .build();
    if (!s.send(request)) {
      requests.take(requestId);
      future.completeExceptionally(
          new IllegalStateException(
              "the session of worker " + workerId + " broke before the snapshot request was sent"));
    }
  }

  /**
   * Leaves: half-closes the stream and waits (up to the close timeout) for the coordinator to end
   * it, stops heartbeats, reconnects, downloads and uploads, and closes the channel if this session
   * built it. Idempotent. Called on the worker's event loop (a listener), it returns at once and
   * closes on a new thread: wait on {@link #closedFuture()} then.
   */
  @Override
  public void close() {
    if (!closeCalled.compareAndSet(false, true)) {
      return;
    }
    if (loop.inLoop()) {
      Thread closer = new Thread(this::shutDown, threadPrefix + "close");
      closer.setDaemon(true);
      closer.start();
      return;
    }
    shutDown();
  }

  private void shutDown() {
    stopped = true;
    setState(SessionState.CLOSED);
    commands.cancelDownload();
    uploads.close();
    if (localCopy != null) {
      localCopy.close(); // a copy being written is finished
    }
    Duration wait = options.closeTimeout();
    SessionAttempt s = stream;
    if (s != null) {
      s.halfClose();
      try {
        s.terminated().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Exception e) {
        log.debug("worker {}: coordinator did not end the session in {}", workerId, wait);
      }
      s.cancel("session closed");
    }
    cancel(joinTimeout);
    cancel(heartbeat);
    cancel(reconnect);
    if (ownLoop != null) {
      SessionThreads.executor(ownLoop.executor(), wait, "events");
    }
    SessionAttempt late = stream; // opened by a reconnect that raced with close
    if (late != null && late != s) {
      late.cancel("session closed");
    }
    requests.failAll("the session of worker " + workerId + " is closed");
    if (ownedChannel != null) {
      SessionThreads.channel(ownedChannel, wait);
    }
    joined.completeExceptionally(
        new IllegalStateException("session of worker " + workerId + " closed before joining"));
    closedFuture.complete(null);
    shared.release();
    log.info("worker {}: session closed", workerId);
  }

  // ---- the stream lifecycle (the loop) ----

  private void openStream() {
    if (stopped) {
      return;
    }
    if (channel instanceof ManagedChannel managed && rejoin.attempts() > 0) {
      managed.resetConnectBackoff(); // our backoff governs how soon we retry, not the channel's
    }
    SessionAttempt s = new SessionAttempt(++generation, new StreamEvents());
    stream = s;
    setState(SessionState.CONNECTING);
    stub.session(s);
    if (stopped) { // close() ran meanwhile, on another thread, and may have missed this stream
      s.cancel("session closed");
      return;
    }
    Join join =
        Join.newBuilder()
            .setWorkerId(workerId)
            .setChannelAddress(worker.channelAddress())
            .addAllOutgoing(worker.outgoing())
            .addAllIncoming(worker.incoming())
            .setEpoch(worker.epoch())
            .setFresh(worker.fresh())
            .build();
    log.info(
        "worker {}: joining in epoch {}{} ({})",
        workerId,
        join.getEpoch(),
        join.getFresh() ? " with a fresh state" : "",
        s);
    s.send(WorkerMessage.newBuilder().setJoin(join).build());
    joinTimeout =
        timer.schedule(
            () ->
                loop.execute(
                    () -> {
                      if (stream == s && !s.welcomed()) {
                        log.warn(
                            "worker {}: no welcome within {}, retrying",
                            workerId,
                            options.joinTimeout());
                        s.cancel("no welcome within " + options.joinTimeout());
                      }
                    }),
            options.joinTimeout().toNanos(),
            TimeUnit.NANOSECONDS);
  }

  private void onMessage(SessionAttempt s, CoordinatorMessage message) {
    if (stream != s || stopped) {
      return;
    }
    if (!terms.admit(message.getTerm(), message.getBodyCase())) {
      s.cancel("a message of an older leader term"); // its coordinator was replaced: join again
      return;
    }
    if (!s.welcomed()) {
      if (message.getBodyCase() != CoordinatorMessage.BodyCase.WELCOME) {
        log.error(
            "worker {}: the coordinator answered join with {}, expected welcome; retrying",
            workerId,
            message.getBodyCase());
        s.cancel("expected welcome, got " + message.getBodyCase());
        return;
      }
      welcomed(s, message);
      return;
    }
    commands.handle(s, message);
  }

  private void welcomed(SessionAttempt s, CoordinatorMessage message) {
    s.markWelcomed();
    secret.set(message.getWelcome().getSessionSecret());
    maxPieceBytes = message.getWelcome().getMaxPieceBytes();
    cancel(joinTimeout);
    rejoin.welcomed();
    worker.markJoined();
    boolean halted = commands.welcome(s, message.getWelcome());
    uploads.joined(); // with this session's secret
    int fromCoordinator = message.getWelcome().getHeartbeatIntervalMs();
    Duration interval =
        options.heartbeatInterval() != null
            ? options.heartbeatInterval()
            : fromCoordinator > 0
                ? Duration.ofMillis(fromCoordinator)
                : SessionOptions.FALLBACK_HEARTBEAT;
    cancel(heartbeat);
    heartbeat =
        timer.scheduleAtFixedRate(
            () -> heartbeat(s), interval.toNanos(), interval.toNanos(), TimeUnit.NANOSECONDS);
    if (localCopy != null) {
      heartbeat(s); // a coordinator that restarted or took over learns the copy now
    }
    log.info(
        "worker {}: joined in epoch {}{}, heartbeat every {} ms",
        workerId,
        message.getWelcome().getEpoch(),
        halted ? " (halted for a rollback)" : "",
        interval.toMillis());
    setState(halted ? SessionState.HALTED : SessionState.JOINED);
    joined.complete(null);
  }

  /**
   * On the shared timer, not the loop: a handler that keeps the loop busy (a send waiting for room,
   * a large state capture) must not make the coordinator take the worker for lost. It touches only
   * the stream, whose sends are serialised.
   */
  private void heartbeat(SessionAttempt s) {
    if (stream != s) {
      return;
    }
    Heartbeat.Builder beat = Heartbeat.newBuilder().setSentAtUnixMs(options.clock().millis());
    if (localCopy != null) {
      beat.setLocalCopy(localCopy.held());
    }
    s.send(WorkerMessage.newBuilder().setHeartbeat(beat).build());
  }

  /** On the loop, once a new local copy is on disk: a heartbeat tells the coordinator now. */
  private void reportLocalCopy() {
    SessionAttempt s = stream;
    if (s != null && s.welcomed()) {
      heartbeat(s);
    }
  }

  private void onEnded(SessionAttempt s, Status status) {
    if (stream != s) {
      return;
    }
    stream = null;
    uploads.left();
    cancel(heartbeat);
    cancel(joinTimeout);
    requests.failAll("the session of worker " + workerId + " ended: " + StatusText.of(status));
    if (stopped) {
      return;
    }
    if (!s.welcomed() && fatal(status.getCode())) {
      stopped = true;
      log.error(
          "worker {}: the coordinator refused the join: {} {}; not retrying",
          workerId,
          status.getCode(),
          status.getDescription());
      setState(SessionState.CLOSED);
      fire(l -> l.fatal(status)); // listeners first: whoever waits on the futures sees them done
      closedFuture.completeExceptionally(status.asException());
      joined.completeExceptionally(status.asException());
      close(); // nothing will use the session's threads again: free them now
      return;
    }
    setState(SessionState.CONNECTING);
    Duration delay = rejoin.after(status);
    if (s.welcomed()) {
      log.warn(
          "worker {}: session lost ({} {}); re-joining in {} ms",
          workerId,
          status.getCode(),
          status.getDescription(),
          delay.toMillis());
    } else {
      log.info(
          "worker {}: join failed ({} {}); retry {} in {} ms",
          workerId,
          status.getCode(),
          status.getDescription(),
          rejoin.attempts(),
          delay.toMillis());
    }
    try {
      reconnect =
          timer.schedule(
              () -> loop.execute(this::openStream), delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("worker {}: closing, not re-joining", workerId);
    }
  }

  private static boolean fatal(Status.Code code) {
    return switch (code) {
      case INVALID_ARGUMENT,
          FAILED_PRECONDITION,
          PERMISSION_DENIED,
          UNAUTHENTICATED,
          UNIMPLEMENTED ->
          true;
      default -> false;
    };
  }

  // ---- helpers ----

  private void setState(SessionState next) {
    SessionState previous =
        state.getAndUpdate(current -> current == SessionState.CLOSED ? current : next);
    if (previous != next && previous != SessionState.CLOSED) {
      log.debug("worker {}: {} -> {}", workerId, previous, next);
      fire(l -> l.stateChanged(previous, next));
    }
  }

  private void fire(Consumer<SessionListener> event) {
    for (SessionListener l : listeners) {
      try {
        event.accept(l);
      } catch (RuntimeException e) {
        log.warn("worker {}: session listener failed", workerId, e);
      }
    }
  }

  /**
   * On the loop: runs an event of a session stream, or holds it back while a restore downloads its
   * piece (commands run one at a time, in arrival order).
   */
  private void streamEvent(Runnable event) {
    if (commands.restoring() || !held.isEmpty()) {
      held.add(event);
      return;
    }
    event.run();
  }

  /** On the loop: runs the events held back by a restore, until another restore holds them. */
  private void releaseHeld() {
    while (!commands.restoring() && !held.isEmpty()) {
      held.poll().run();
    }
  }

  private static void cancel(ScheduledFuture<?> f) {
    if (f != null) {
      f.cancel(false);
    }
  }

  /** gRPC callbacks, on the transport's thread: each hands its event to the loop. */
  private final class StreamEvents implements SessionAttempt.Events {
    @Override
    public void message(SessionAttempt s, CoordinatorMessage message) {
      loop.execute(() -> streamEvent(() -> onMessage(s, message)));
    }

    @Override
    public void ended(SessionAttempt s, Status status) {
      loop.execute(() -> streamEvent(() -> onEnded(s, status)));
    }
  }

  /** What the command handler needs. */
  private final class Hooks implements CommandHandler.Hooks {
    @Override
    public void state(SessionState next) {
      setState(next);
    }

    @Override
    public CompletableFuture<Long> takeGrant(long requestId) {
      return requests.take(requestId);
    }

    @Override
    public void restoreFailed(long snapshotId, String reason) {
      fire(l -> l.restoreFailed(snapshotId, reason));
    }

    @Override
    public void restoreEnded() {
      releaseHeld();
    }
  }

  /** The welcomed stream, as a way up for whole small pieces; on the loop. */
  private final class PiecesOnStream implements SnapshotUploader.Pieces {
    @Override
    public int maxPieceBytes() {
      SessionAttempt s = stream;
      return s != null && s.welcomed() ? maxPieceBytes : 0;
    }

    @Override
    public boolean send(PieceUpload piece) {
      SessionAttempt s = stream;
      return s != null
          && s.welcomed()
          && s.send(WorkerMessage.newBuilder().setPiece(piece).build());
    }

    @Override
    public Future<?> deadline(Duration timeout, Runnable expired) {
      return timer.schedule(expired, timeout.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /** What the upload queue reports back. */
  private final class UploadReports implements UploadQueue.Reports {
    @Override
    public boolean snapshotFailed(long snapshotId, String reason) {
      SessionAttempt s = stream;
      return s != null
          && s.welcomed()
          && s.send(
              WorkerMessage.newBuilder()
                  .setSnapshotFailed(
                      LocalSnapshotFailed.newBuilder().setSnapshotId(snapshotId).setReason(reason))
                  .build());
    }

    @Override
    public void uploaded(long snapshotId, long storedBytes) {
      fire(l -> l.uploaded(snapshotId, storedBytes));
    }

    @Override
    public void uploadFailed(long snapshotId, String reason) {
      fire(l -> l.uploadFailed(snapshotId, reason));
    }
  }
}
