package io.cutpoint.client;

import io.cutpoint.api.WorkerCertificates;
import io.cutpoint.api.WorkerIdSyntax;
import io.cutpoint.api.v1.Ack;
import io.cutpoint.api.v1.ChannelGrpc;
import io.cutpoint.api.v1.Frame;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.Optional;
import java.util.SortedSet;

/**
 * The worker's {@code Channel} service. Its server's streams run on the worker's own Netty event
 * loop, which is the worker's event loop: it checks the header, then runs every frame's core step
 * ({@link WorkerCore}) where it is read, with no hand-off (queued behind the worker's other tasks
 * only when some are running or waiting, see {@link EventLoop#run}); with markers read ahead, that
 * step queues the frame and takes its markers, and the frame's delivery gets a turn of its own.
 * Inbound flow control is manual: the loop asks for a frame each time it processed one, so a busy
 * worker stops reading and its senders fill up and wait.
 *
 * <p>The header is refused (INVALID_ARGUMENT) when an id in it is not a worker id, by what is wrong
 * and never by echoing it, and when the channel is not declared. Under mutual TLS it is refused
 * (PERMISSION_DENIED) unless the peer's certificate names the sender it claims.
 */
final class ChannelService extends ChannelGrpc.ChannelImplBase {

  /** Declared senders named in a refusal, at most. */
  private static final int NAMED_SENDERS = 8;

  /** The worker ids the current call's TLS peer certificate names. */
  private static final Context.Key<SortedSet<String>> CERTIFIED =
      Context.key("cutpoint-peer-workers");

  private final WorkerCore core;
  private final EventLoop loop;
  private final WireEffects effects;
  private final boolean certificatesRequired;

  private ChannelService(
      WorkerCore core, EventLoop loop, WireEffects effects, boolean certificatesRequired) {
    this.core = core;
    this.loop = loop;
    this.effects = effects;
    this.certificatesRequired = certificatesRequired;
  }

  /**
   * The service for {@code core}, whose frames run on {@code loop}.
   *
   * @param certificatesRequired true under mutual TLS: a peer's certificate must name the sender
   *     its header claims (SAN URI {@code cutpoint://worker/ID})
   */
  static ServerServiceDefinition definition(
      WorkerCore core, EventLoop loop, WireEffects effects, boolean certificatesRequired) {
    ChannelService service = new ChannelService(core, loop, effects, certificatesRequired);
    return certificatesRequired
        ? ServerInterceptors.intercept(service, new PeerCertificates())
        : service.bindService();
  }

  @Override
  public StreamObserver<Frame> open(StreamObserver<Ack> responseObserver) {
    ServerCallStreamObserver<Ack> out = (ServerCallStreamObserver<Ack>) responseObserver;
    out.disableAutoRequest();
    InboundStream stream = new InboundStream(out);
    stream.request(1);
    return new FrameObserver(stream, CERTIFIED.get());
  }

  /** Puts the worker ids of the TLS peer's certificate in the call's context. */
  private static final class PeerCertificates implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      SortedSet<String> ids =
          WorkerCertificates.certifiedWorkers(
              call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
      return Contexts.interceptCall(
          Context.current().withValue(CERTIFIED, ids), call, headers, next);
    }
  }

  /**
   * Why a peer whose certificate names {@code certified} may not send as {@code from}, or empty.
   */
  private static Optional<String> notCertifiedAs(SortedSet<String> certified, String from) {
    if (certified.contains(from)) {
      return Optional.empty();
    }
    if (certified.isEmpty()) {
      return Optional.of(
          "the client certificate names no worker (a SAN URI "
              + WorkerCertificates.SAN_PREFIX
              + "ID naming the sender is required under mutual TLS)");
    }
    return Optional.of(
        "the client certificate names worker "
            + String.join(", ", certified)
            + ", not "
            + from
            + ", the sender this channel header claims");
  }

  /** Up to {@link #NAMED_SENDERS} of {@code senders}, and how many there are. */
  private static String someOf(SortedSet<String> senders) {
    if (senders.isEmpty()) {
      return "no worker";
    }
    String named = String.join(", ", senders.stream().limit(NAMED_SENDERS).toList());
    return senders.size()
        + (senders.size() == 1 ? " worker (" : " workers (")
        + named
        + (senders.size() > NAMED_SENDERS ? ", ...)" : ")");
  }

  private final class FrameObserver implements StreamObserver<Frame> {
    private final InboundStream stream;

    /** Worker ids of the peer's certificate (null when certificates are not required). */
    private final SortedSet<String> certified;

    private ChannelReceiver receiver;
    private boolean rejected;

    FrameObserver(InboundStream stream, SortedSet<String> certified) {
      this.stream = stream;
      this.certified = certified;
    }

    @Override
    public void onNext(Frame frame) {
      if (rejected) {
        return;
      }
      if (receiver == null) {
        receiver = accept(frame);
        if (receiver == null) {
          return;
        }
        String r = receiver.from();
        loop.run(() -> effects.apply(core.attach(r, stream)));
        if (frame.getItemsCount() == 0) {
          return;
        }
      }
      String r = receiver.from();
      InboundFrame inbound = WireFrames.toDomain(frame);
      loop.run(() -> effects.apply(core.onFrame(r, stream, inbound)));
    }

    private ChannelReceiver accept(Frame frame) {
      if (!frame.hasHeader()) {
        return reject(
            Status.INVALID_ARGUMENT.withDescription(
                "the first frame of a Channel.Open stream must carry a header"));
      }
      String from = frame.getHeader().getFrom();
      String to = frame.getHeader().getTo();
      Optional<String> bad =
          WorkerIdSyntax.problem(from, WorkerIdSyntax.MAX_ID_LENGTH)
              .map(p -> "the channel header's sender: " + p)
              .or(
                  () ->
                      WorkerIdSyntax.problem(to, WorkerIdSyntax.MAX_ID_LENGTH)
                          .map(p -> "the channel header's receiver: " + p));
      if (bad.isPresent()) {
        return reject(Status.INVALID_ARGUMENT.withDescription(bad.get()));
      }
      if (certificatesRequired) {
        Optional<String> impostor = notCertifiedAs(certified, from);
        if (impostor.isPresent()) {
          return reject(Status.PERMISSION_DENIED.withDescription(impostor.get()));
        }
      }
      if (!core.workerId().equals(to)) {
        return reject(
            Status.INVALID_ARGUMENT.withDescription(
                "this is worker '" + core.workerId() + "', not '" + to + "'"));
      }
      ChannelReceiver r = core.receiver(from);
      if (r == null) {
        return reject(
            Status.INVALID_ARGUMENT.withDescription(
                "channel '"
                    + from
                    + "' -> '"
                    + to
                    + "' is not declared: worker '"
                    + to
                    + "' receives from "
                    + someOf(core.incoming())));
      }
      return r;
    }

    private ChannelReceiver reject(Status status) {
      rejected = true;
      stream.fail(status);
      return null;
    }

    @Override
    public void onError(Throwable t) {
      detach();
    }

    @Override
    public void onCompleted() {
      detach();
    }

    private void detach() {
      if (receiver != null) {
        String r = receiver.from();
        loop.run(() -> effects.apply(core.detach(r, stream)));
      }
    }
  }
}
