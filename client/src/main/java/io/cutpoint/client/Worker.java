package io.cutpoint.client;

import io.cutpoint.client.engine.EngineOptions;
import io.cutpoint.cut.LocalSnapshot;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * A Cutpoint worker: an application process that exchanges messages with its peers over reliable
 * FIFO channels and takes part in Chandy-Lamport snapshots, rollbacks and replays.
 *
 * <h2>Threading</h2>
 *
 * <p>Each worker has one event loop, a Netty event loop of its own ({@code cutpoint-<id>-events}),
 * which carries all of the worker's channels too, its server's streams and its connections to
 * peers. It runs the snapshot engine, the {@link MessageHandler}, the {@link StateHandler} and the
 * snapshot listener, one call at a time; a frame runs its handlers where Netty reads it, and the
 * frames the worker writes join their connection on the same thread. A process that hosts many
 * workers can have them share the process's I/O loops instead ({@link Builder#sharedEventLoop},
 * {@code cutpoint-io-*}, one per core; see {@code SharedThreads}). {@link #send} may be called from
 * a handler (it goes straight through the engine) or from any other thread: then it takes the
 * channel's next sequence number and queues the message for the event loop, one hand-off and no
 * lock of the engine; the loop numbers queued messages in order before anything else it sends on
 * that channel. So a state capture always sits between two sends: every message numbered before it
 * travels before the marker, every one after it travels after the marker, on every channel.
 *
 * <p>{@code send} from another thread waits while the channel holds its maximum of unacknowledged
 * messages or bytes, and while the worker is halted for a rollback; after {@link
 * ChannelOptions#sendTimeout()} it throws {@link SendTimeoutException}. From a handler it never
 * waits (the loop is the channel's I/O thread): past the bound the message is taken all the same,
 * and the worker reads no more frames until the channel is back within its bound, or until the send
 * timeout passed, after which a handler's send into that channel throws {@link
 * SendTimeoutException}. Called from a handler while the worker is halted, it drops the message at
 * once and returns 0: the handler runs in an epoch that is being rolled back. A handler that blocks
 * stops its worker (and, with a shared loop, the other workers whose loops share its thread).
 *
 * <p>A coordinator session runs on the event loop too ({@link #eventLoop()}): its commands,
 * restores and uploads. The timer ({@code cutpoint-timer}) is shared by every worker of the
 * process, so a worker owns one thread, its event loop, and none with a shared loop.
 */
public final class Worker implements WorkerControl, AutoCloseable {

  private final Builder config;
  private final SortedSet<String> outgoing;
  private final SortedSet<String> incoming;
  private final PeerDirectory peers;
  private final WorkerMetrics metrics;
  private final Map<String, ChannelSender> senders = new TreeMap<>();
  private final EventLoop loop;
  private final ReadGate gate;
  private final WorkerCore core;
  private final WireEffects effects;
  private WorkerTransport transport;
  private java.util.concurrent.ScheduledFuture<?> sweepTask;
  private volatile int port = -1;
  private volatile boolean closed;
  private volatile boolean fresh = true;
  private volatile CoordinatorLink coordinator;

  /** Event thread only: a task of the coordinator session runs (and is not inside the core). */
  private boolean sessionTask;

  private final WorkerLoop sessionLoop =
      new WorkerLoop() {
        @Override
        public void execute(Runnable task) {
          loop.execute(
              () -> {
                sessionTask = true;
                try {
                  task.run();
                } finally {
                  sessionTask = false;
                }
              });
        }

        @Override
        public boolean inLoop() {
          return loop.inLoop();
        }
      };

  private Worker(Builder b) {
    this.config = b;
    this.outgoing = Collections.unmodifiableSortedSet(new java.util.TreeSet<>(b.outgoing));
    this.incoming = Collections.unmodifiableSortedSet(new java.util.TreeSet<>(b.incoming));
    this.peers = b.peers;
    this.metrics = new WorkerMetrics(b.registry);
    this.loop = new EventLoop("cutpoint-" + b.workerId + "-events");
    ChannelSender.Hooks hooks = new SenderHooks();
    for (String peer : outgoing) {
      senders.put(peer, new ChannelSender(b.workerId, peer, b.epoch, b.channelOptions, hooks));
    }
    this.core =
        new WorkerCore(
            b.workerId,
            outgoing,
            incoming,
            b.stateHandler,
            b.messageHandler,
            metrics,
            b.engineOptions,
            b.channelOptions.inboundFramesAhead(),
            b.markersAhead,
            b.parkingLimits,
            b.epoch);
    this.gate =
        new ReadGate(loop::execute, () -> transport.timer(), b.channelOptions.sendTimeout());
    this.effects =
        new WireEffects(
            b.workerId,
            Collections.unmodifiableMap(senders),
            gate,
            this::deliverNextLater,
            this::ackLater);
  }

  /** Queues the core's turn to send {@code from}'s channel the ack it owes, after a delay. */
  private void ackLater(String from, long delayNanos) {
    loop.schedule(() -> effects.apply(core.ackDue(from)), delayNanos);
  }

  /** Queues the core's turn to deliver the next frame read ahead on {@code from}'s channel. */
  private void deliverNextLater(String from) {
    loop.execute(() -> effects.apply(core.deliverNext(from)));
  }

  public static Builder builder(String workerId) {
    return new Builder(workerId);
  }

  /**
   * Binds the channel server, starts the event thread and connects to every outgoing peer whose
   * address is known. Returns this worker.
   *
   * @throws UncheckedIOException when the listen address cannot be bound
   */
  public synchronized Worker start() {
    if (port >= 0 || closed) {
      throw new IllegalStateException(
          "worker "
              + config.workerId
              + (closed
                  ? " was closed, or its start failed: build a new worker"
                  : " was already started"));
    }
    ChannelOptions o = config.channelOptions;
    transport =
        new WorkerTransport(
            config.workerId,
            config.sharedEventLoop,
            config.serverCredentials,
            config.channelCredentials);
    loop.start(transport.loop());
    int bound;
    try {
      bound =
          transport.listen(
              config.host,
              config.port,
              ChannelService.definition(core, loop, effects, transport.certificatesRequired()),
              o.maxFrameBytes() + o.maxPayloadBytes() + (64 << 10));
    } catch (IOException e) {
      loop.stop(5_000);
      transport.shutdownThreads();
      closed = true; // its event loop is stopped for good: a new worker must be built
      throw new UncheckedIOException(
          "worker "
              + config.workerId
              + " cannot listen on "
              + config.host
              + ":"
              + config.port
              + " (build a new worker to try again)",
          e);
    }
    port = bound;
    long sweep = Math.max(config.parkingLimits.maxAge().toNanos() / 4, 10_000_000L);
    sweepTask =
        transport
            .timer()
            .scheduleWithFixedDelay(
                () -> loop.execute(() -> effects.apply(core.expireParked())),
                sweep,
                sweep,
                java.util.concurrent.TimeUnit.NANOSECONDS);
    for (ChannelSender s : senders.values()) {
      peers.addressOf(s.to()).ifPresent(s::connect);
    }
    if (config.coordinators != null) {
      coordinator = CoordinatorLink.open(config.coordinators, this);
    }
    return this;
  }

  /**
   * The worker's own coordinator session, when it was built with {@link Builder#coordinators}
   * (after {@link #start()}): its state, {@code joined()}, leader term and refused old-term
   * messages.
   */
  public java.util.Optional<io.cutpoint.client.session.CoordinatorSession> session() {
    CoordinatorLink c = coordinator;
    return c == null ? java.util.Optional.empty() : java.util.Optional.of(c.session());
  }

  /**
   * Sends {@code payload} to {@code to} and returns its sequence number on that channel. The
   * payload is copied. Waits while the channel is full or the worker is halted (see the class
   * comment); returns 0 when called from a handler of a halted worker (the message is dropped).
   *
   * @throws IllegalArgumentException when {@code to} is not an outgoing peer or the payload is
   *     larger than {@link ChannelOptions#maxPayloadBytes()}
   * @throws SendTimeoutException when no room came within the send timeout
   * @throws IllegalStateException when the worker is not started or closed
   */
  public long send(String to, byte[] payload) {
    ChannelSender sender = senders.get(to);
    if (sender == null) {
      throw new IllegalArgumentException(
          "worker "
              + config.workerId
              + " has no channel to '"
              + to
              + "'; its outgoing channels go to "
              + outgoing);
    }
    if (payload.length > config.channelOptions.maxPayloadBytes()) {
      throw new IllegalArgumentException(
          "payload of "
              + payload.length
              + " bytes exceeds the limit of "
              + config.channelOptions.maxPayloadBytes()
              + " bytes");
    }
    if (port < 0 || closed) {
      throw new IllegalStateException(
          "worker " + config.workerId + " is " + (closed ? "closed" : "not started"));
    }
    // The worker's own copy: the frame wraps it (ChannelSender.appendData), so it is the only one.
    if (!loop.inLoop()) {
      return sender.claim(payload.clone()); // the event thread numbers it (claimsOf)
    }
    if (core.halted()) {
      return 0; // a handler of an epoch being rolled back
    }
    return number(sender, sender.claimOnLoop(payload.clone()));
  }

  /** On the event thread: numbers the application's claimed sends on {@code sender}. */
  private void claimsOf(ChannelSender sender) {
    number(sender, sender.takeClaims());
  }

  /** Numbers and buffers {@code payloads} in order; the last one's sequence number. */
  private long number(ChannelSender sender, List<byte[]> payloads) {
    WorkerCore.Sent sent = core.send(sender.to(), payloads);
    effects.apply(sent.effects());
    return sent.seq();
  }

  /**
   * Runs {@code task} on the event thread, in turn with the handlers. Application state that the
   * {@link StateHandler} captures must only change on the event thread: in a handler or here.
   */
  public void execute(Runnable task) {
    running();
    loop.execute(task);
  }

  /** The worker's counters. */
  public WorkerCounters counters() {
    return metrics.snapshot();
  }

  /**
   * Data messages sent so far on the channel to {@code peer}: the engine's count, plus messages an
   * application thread sent that the event thread has not numbered yet.
   */
  public long sentCount(String peer) {
    return sender(peer).claimedCount();
  }

  /** Data messages received so far on the channel from {@code peer} (the engine's count). */
  public long receivedCount(String peer) {
    return loop.read(() -> core.engine().received(peer));
  }

  /** Data messages the channel to {@code peer} holds now (unacknowledged plus reserved). */
  public int bufferedMessages(String peer) {
    return sender(peer).bufferedMessages();
  }

  /** The most data messages the channel to {@code peer} ever held at once. */
  public int maxBufferedMessages(String peer) {
    return sender(peer).highWaterMessages();
  }

  /**
   * True when every message and marker sent was acknowledged by its receiver. Receivers acknowledge
   * a lightly used channel's frames up to 50 ms after they arrive, so this trails them.
   */
  public boolean allAcknowledged() {
    return senders.values().stream().allMatch(ChannelSender::allAcknowledged);
  }

  private ChannelSender sender(String peer) {
    ChannelSender s = senders.get(peer);
    if (s == null) {
      throw new IllegalArgumentException("no channel to '" + peer + "'");
    }
    return s;
  }

  // ---- WorkerControl ---------------------------------------------------------------------

  @Override
  public String workerId() {
    return config.workerId;
  }

  @Override
  public String channelAddress() {
    if (port < 0) {
      throw new IllegalStateException("worker " + config.workerId + " is not started");
    }
    return config.advertisedHost + ":" + port;
  }

  @Override
  public SortedSet<String> outgoing() {
    return outgoing;
  }

  @Override
  public SortedSet<String> incoming() {
    return incoming;
  }

  @Override
  public long epoch() {
    return core.epoch();
  }

  @Override
  public void updatePeers(Map<String, String> addressesByWorkerId) {
    peers.update(addressesByWorkerId);
    if (port >= 0 && !closed) {
      addressesByWorkerId.forEach(
          (peer, address) -> {
            ChannelSender s = senders.get(peer);
            if (s != null) {
              s.connect(address);
            }
          });
    }
  }

  @Override
  public void startSnapshot(long snapshotId) {
    running();
    command(() -> core.startSnapshot(snapshotId));
  }

  @Override
  public void abortSnapshot(long snapshotId) {
    running();
    command(() -> core.abortSnapshot(snapshotId));
  }

  @Override
  public void endUnknownSnapshots(long nextSnapshotId, java.util.Set<Long> pending) {
    running();
    command(() -> core.endUnknownSnapshots(nextSnapshotId, pending));
  }

  /**
   * Runs a command's core step: inline when a task of the session calls it on the event thread (so
   * the coordinator's commands keep their order with the halts, restores and resumes that run
   * inline there), otherwise as a task of its own (from a handler, the step must not run inside the
   * core's call that runs the handler).
   */
  private void command(Supplier<List<WorkerEffect>> step) {
    if (sessionTask && loop.inLoop()) {
      inline(step);
    } else {
      loop.execute(() -> effects.apply(step.get()));
    }
  }

  /** On the event thread: the core's step and its effects, the session's mark lifted meanwhile. */
  private void inline(Supplier<List<WorkerEffect>> step) {
    boolean outer = sessionTask;
    sessionTask = false;
    try {
      effects.apply(step.get());
    } finally {
      sessionTask = outer;
    }
  }

  /** On the event thread (inline) or handed to it and waited for. */
  private void andWait(Supplier<List<WorkerEffect>> step) {
    if (loop.inLoop()) {
      inline(step);
    } else {
      loop.runAndWait(() -> effects.apply(step.get()));
    }
  }

  /**
   * The event loop, for the coordinator session: its tasks run on the event thread, marked as the
   * session's (see {@link #command}).
   */
  @Override
  public WorkerLoop eventLoop() {
    return sessionLoop;
  }

  /**
   * A channel to the coordinator on this worker's event loop ({@link
   * WorkerControl#coordinatorChannel}): a command is read where the worker runs it, and an upload
   * is written where the piece is captured, with no hand-off between threads; the worker's own
   * session ({@link Builder#coordinators}) uses it. The price: a handler that keeps the loop busy
   * for longer than the coordinator's heartbeat timeout delays the session's heartbeats too, and
   * the worker looks lost. Available once the worker is started; close the session and the channel
   * before the worker.
   */
  @Override
  public java.util.Optional<java.nio.file.Path> localRecovery() {
    return java.util.Optional.ofNullable(config.localRecovery);
  }

  @Override
  public io.grpc.ManagedChannelBuilder<?> coordinatorChannel(
      String target, io.grpc.ChannelCredentials credentials) {
    running(); // port is written after transport: reading it first makes transport visible
    return transport.coordinatorChannel(target, credentials);
  }

  @Override
  public void halt(long newEpoch) {
    running();
    if (newEpoch < core.epoch()) {
      throw new IllegalArgumentException(
          "worker "
              + config.workerId
              + " is in epoch "
              + core.epoch()
              + "; cannot halt into older epoch "
              + newEpoch);
    }
    core.markHalted(newEpoch);
    senders.values().forEach(s -> s.setHalted(true));
    andWait(() -> core.halt(newEpoch));
  }

  @Override
  public void restore(long epoch, LocalSnapshot piece, byte[] state) {
    running();
    andWait(() -> core.restore(epoch, piece, state));
    fresh = false;
  }

  /** True until the first restore or the first welcome of a coordinator (see WorkerControl). */
  @Override
  public boolean fresh() {
    return fresh;
  }

  @Override
  public void markJoined() {
    fresh = false;
  }

  @Override
  public void resume(long epoch) {
    running();
    andWait(() -> core.resume(epoch));
  }

  @Override
  public void setSnapshotListener(LocalSnapshotListener listener) {
    effects.setListener(listener);
  }

  private void running() {
    if (port < 0 || closed) {
      throw new IllegalStateException(
          "worker " + config.workerId + " is " + (closed ? "closed" : "not started"));
    }
  }

  /**
   * Stops the worker: closes its streams, its channel server (freeing the port), its event thread
   * and its transport threads, and waits for them. Messages not yet acknowledged are dropped. Safe
   * to call twice.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (coordinator != null) {
      coordinator.close(); // leaves while the event thread still runs the session's tasks
    }
    if (sweepTask != null) {
      sweepTask.cancel(false); // the timer is shared with the process's other workers
    }
    loop.requestStop();
    List<ManagedChannel> channels = new ArrayList<>();
    for (ChannelSender s : senders.values()) {
      ManagedChannel c = s.close();
      if (c != null) {
        channels.add(c);
      }
    }
    if (transport != null) {
      transport.shutdownServer();
      transport.awaitClosed(channels);
    }
    loop.stop(5_000);
    if (transport != null) {
      transport.shutdownThreads();
    }
  }

  @Override
  public String toString() {
    return "Worker[" + config.workerId + (port >= 0 ? " @" + channelAddress() : "") + "]";
  }

  private final class SenderHooks implements ChannelSender.Hooks {
    @Override
    public boolean inLoop() {
      return loop.inLoop();
    }

    @Override
    public void flushWhenIdle(ChannelSender sender) {
      loop.flushWhenIdle(sender);
    }

    @Override
    public ScheduledExecutorService timer() {
      return transport.timer();
    }

    @Override
    public ManagedChannel newChannel(String address) {
      return transport.newChannel(address);
    }

    @Override
    public WorkerMetrics metrics() {
      return metrics;
    }

    @Override
    public void claimed(ChannelSender sender) {
      loop.execute(() -> claimsOf(sender));
    }

    @Override
    public void overdrawn(ChannelSender sender, boolean over) {
      gate.overdrawn(sender, over);
    }
  }

  /** Configures a {@link Worker}. */
  public static final class Builder {
    private final String workerId;
    private String host = "127.0.0.1";
    private String advertisedHost = "127.0.0.1";
    private int port;
    private final java.util.Set<String> outgoing = new java.util.TreeSet<>();
    private final java.util.Set<String> incoming = new java.util.TreeSet<>();
    private StateHandler stateHandler;
    private MessageHandler messageHandler;
    private PeerDirectory peers = PeerDirectory.of(Map.of());
    private ChannelOptions channelOptions = ChannelOptions.defaults();
    private ParkingLimits parkingLimits = ParkingLimits.defaults();
    private boolean markersAhead = true;
    private EngineOptions engineOptions = EngineOptions.defaults();
    private io.micrometer.core.instrument.MeterRegistry registry;
    private boolean sharedEventLoop;
    private long epoch;
    private io.grpc.ServerCredentials serverCredentials;
    private io.grpc.ChannelCredentials channelCredentials;
    private CoordinatorLink.Settings coordinators;
    private java.nio.file.Path localRecovery;

    private static final java.util.regex.Pattern ID =
        java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,128}");

    private Builder(String workerId) {
      this.workerId = checkId(workerId, "worker id");
    }

    private static String checkId(String id, String what) {
      if (id == null || !ID.matcher(id).matches()) {
        throw new IllegalArgumentException(
            what + " must be 1-128 characters of [A-Za-z0-9._-], got '" + id + "'");
      }
      return id;
    }

    /** Where the channel server listens; port 0 picks a free port. Default 127.0.0.1:0. */
    public Builder listenOn(String host, int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port out of range: " + port);
      }
      this.host = host;
      this.port = port;
      boolean wildcard = host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
      this.advertisedHost = wildcard ? "127.0.0.1" : host;
      return this;
    }

    /** The host peers should dial, when it differs from the listen host. */
    public Builder advertisedHost(String host) {
      this.advertisedHost = host;
      return this;
    }

    /** Peers this worker sends to. */
    public Builder outgoing(String... peers) {
      return outgoing(List.of(peers));
    }

    public Builder outgoing(java.util.Collection<String> peers) {
      addPeers(outgoing, peers);
      return this;
    }

    /** Peers this worker receives from. */
    public Builder incoming(String... peers) {
      return incoming(List.of(peers));
    }

    public Builder incoming(java.util.Collection<String> peers) {
      addPeers(incoming, peers);
      return this;
    }

    private void addPeers(java.util.Set<String> into, java.util.Collection<String> peers) {
      for (String p : peers) {
        checkId(p, "peer id");
        if (p.equals(workerId)) {
          throw new IllegalArgumentException(
              "worker " + workerId + " cannot have a channel to itself");
        }
        into.add(p);
      }
    }

    public Builder stateHandler(StateHandler handler) {
      this.stateHandler = handler;
      return this;
    }

    public Builder messageHandler(MessageHandler handler) {
      this.messageHandler = handler;
      return this;
    }

    /** Peer addresses (worker id to host:port) known up front. */
    public Builder peers(Map<String, String> addressesByWorkerId) {
      this.peers = PeerDirectory.of(addressesByWorkerId);
      return this;
    }

    public Builder peerDirectory(PeerDirectory directory) {
      this.peers = java.util.Objects.requireNonNull(directory, "directory");
      return this;
    }

    public Builder channelOptions(ChannelOptions options) {
      this.channelOptions = java.util.Objects.requireNonNull(options, "options");
      return this;
    }

    /** Past this many recorded payload bytes, a local snapshot fails (default 256 MiB). */
    public Builder maxRecordedBytesPerSnapshot(long bytes) {
      this.engineOptions = engineOptions.withMaxRecordedBytesPerSnapshot(bytes);
      return this;
    }

    /** Bounds on the frames held back per incoming channel (see {@link ParkingLimits}). */
    public Builder parkingLimits(ParkingLimits limits) {
      this.parkingLimits = java.util.Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * Whether a marker is taken as soon as the worker reads it (the default) or in its turn after
     * the data before it. Read ahead, the frames the worker asked for wait in its own queue instead
     * of gRPC's, and a marker found there records this worker and closes its channel at once, with
     * the data queued before it as the channel's state (protocol.md, "Early markers"): under load,
     * a snapshot does not wait for the handlers to work through their backlog. {@code false} keeps
     * markers strictly in channel order, each frame handled as it is read.
     */
    public Builder markersAhead(boolean ahead) {
      this.markersAhead = ahead;
      return this;
    }

    /**
     * Local recovery: the worker keeps its newest uploaded piece of state in {@code dir} (one file,
     * {@code ID.state}, with the snapshot id, the state's content chunk list and a CRC32C), and a
     * rollback to that snapshot restores the state from it after checking its chunk list against
     * the snapshot's, without downloading the state. Costs a write of the whole state per snapshot,
     * on a thread of its own. Only content-addressed uploads (the default) are kept.
     */
    public Builder localRecovery(java.nio.file.Path dir) {
      this.localRecovery = java.util.Objects.requireNonNull(dir, "dir");
      return this;
    }

    public Builder engineOptions(EngineOptions options) {
      this.engineOptions = java.util.Objects.requireNonNull(options, "options");
      return this;
    }

    /**
     * Secures the worker-to-worker channels: {@code server} for this worker's channel server (e.g.
     * {@code TlsServerCredentials}, with client certificates required for mutual TLS), {@code
     * channel} for its connections to peers (e.g. {@code TlsChannelCredentials} trusting the CA
     * that signed the peers' certificates, whose names must match the peers' advertised hosts).
     * Every worker of a cluster must use the same scheme. Default: plaintext. When {@code server}
     * is a {@code TlsServerCredentials} that requires client certificates (mutual TLS), a peer
     * opening a channel must present a certificate naming the sender its header claims (SAN URI
     * {@code cutpoint://worker/ID}); others are refused with PERMISSION_DENIED.
     */
    public Builder transportCredentials(
        io.grpc.ServerCredentials server, io.grpc.ChannelCredentials channel) {
      this.serverCredentials = java.util.Objects.requireNonNull(server, "server");
      this.channelCredentials = java.util.Objects.requireNonNull(channel, "channel");
      return this;
    }

    /** Publish the worker's counters to {@code registry} (optional). */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
      this.registry = registry;
      return this;
    }

    /**
     * True: the worker runs on one of the process's shared I/O loops ({@code cutpoint-io-N}, one
     * per core) and owns no thread, for a process that hosts more workers than it has cores, at the
     * price of their sharing a thread (a handler that blocks stops every worker on its loop).
     * Default false: an event loop of its own, {@code cutpoint-<id>-events}, which carries all its
     * channels.
     */
    public Builder sharedEventLoop(boolean shared) {
      this.sharedEventLoop = shared;
      return this;
    }

    /** The epoch the worker starts in (default 0). */
    public Builder initialEpoch(long epoch) {
      if (epoch < 0) {
        throw new IllegalArgumentException("initialEpoch must be at least 0, got " + epoch);
      }
      this.epoch = epoch;
      return this;
    }

    /**
     * Joins the coordinators at {@code addresses} ({@code HOST:PORT} each) when started, and stays
     * joined to whichever of them leads: the worker's session ({@link Worker#session()}) goes over
     * a {@link io.cutpoint.client.session.LeaderChannel}, follows a standby's "not the leader"
     * pointer, and re-joins a new leader after a failover without the worker restarting. {@link
     * Worker#close()} leaves. One address is a single coordinator. Plaintext with {@link
     * io.cutpoint.client.session.SessionOptions#defaults()} unless {@link #coordinators(List,
     * io.grpc.ChannelCredentials, io.cutpoint.client.session.SessionOptions)} says otherwise.
     *
     * @throws IllegalArgumentException when the list is empty, an address is not {@code HOST:PORT}
     *     with a port 1-65535, or one is listed twice
     */
    public Builder coordinators(List<String> addresses) {
      return coordinators(
          addresses,
          io.grpc.InsecureChannelCredentials.create(),
          io.cutpoint.client.session.SessionOptions.defaults());
    }

    /** As {@link #coordinators(List)}, from {@code a:7070,b:7070}. */
    public Builder coordinators(String commaSeparated) {
      return coordinators(
          io.cutpoint.client.session.CoordinatorAddresses.parse(commaSeparated),
          io.grpc.InsecureChannelCredentials.create(),
          io.cutpoint.client.session.SessionOptions.defaults());
    }

    /**
     * As {@link #coordinators(List)}, reaching the coordinators with {@code credentials} (TLS, a
     * worker token) and a session tuned by {@code options}.
     */
    public Builder coordinators(
        List<String> addresses,
        io.grpc.ChannelCredentials credentials,
        io.cutpoint.client.session.SessionOptions options) {
      this.coordinators =
          new CoordinatorLink.Settings(
              io.cutpoint.client.session.CoordinatorAddresses.check(addresses),
              java.util.Objects.requireNonNull(credentials, "credentials"),
              java.util.Objects.requireNonNull(options, "options"));
      return this;
    }

    public Worker build() {
      if (stateHandler == null || messageHandler == null) {
        throw new IllegalStateException(
            "worker " + workerId + " needs a state handler and a message handler");
      }
      return new Worker(this);
    }
  }
}
