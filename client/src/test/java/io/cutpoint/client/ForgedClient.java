package io.cutpoint.client;

import io.cutpoint.api.v1.Ack;
import io.cutpoint.api.v1.ChannelGrpc;
import io.cutpoint.api.v1.ChannelHeader;
import io.cutpoint.api.v1.DataMessage;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.api.v1.Marker;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A client that is not a worker: it dials a worker's channel port over loopback gRPC, claims to be
 * the sender of a channel and writes whatever frames a test gives it. Closes its connection.
 */
final class ForgedClient implements AutoCloseable {

  private final ManagedChannel channel;

  ForgedClient(String address) {
    channel = ManagedChannelBuilder.forTarget(address).usePlaintext().build();
  }

  /** Dials with {@code credentials} (e.g. TLS with a client certificate of the test's choosing). */
  ForgedClient(String address, io.grpc.ChannelCredentials credentials) {
    channel =
        io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress(
                PeerEndpoint.parse(address), credentials)
            .build();
  }

  /** Opens a stream claiming the channel {@code from -> to}; its first ack arrives soon after. */
  Stream open(String from, String to) {
    return open(header(from, to));
  }

  /** Opens a stream whose first frame is {@code first} (a header, or not). */
  Stream open(Frame first) {
    Stream s = new Stream();
    s.out = ChannelGrpc.newStub(channel).open(s);
    s.out.onNext(first);
    return s;
  }

  static Frame header(String from, String to) {
    return Frame.newBuilder().setHeader(ChannelHeader.newBuilder().setFrom(from).setTo(to)).build();
  }

  static Frame data(long epoch, long position, long seq, int payloadBytes) {
    return Frame.newBuilder()
        .setEpoch(epoch)
        .addItems(
            Item.newBuilder()
                .setPosition(position)
                .setData(
                    DataMessage.newBuilder()
                        .setSeq(seq)
                        .setPayload(
                            com.google.protobuf.ByteString.copyFrom(new byte[payloadBytes]))))
        .build();
  }

  static Frame marker(long epoch, long position, long snapshotId, long sentCount) {
    return Frame.newBuilder()
        .setEpoch(epoch)
        .addItems(
            Item.newBuilder()
                .setPosition(position)
                .setMarker(Marker.newBuilder().setSnapshotId(snapshotId).setSentCount(sentCount)))
        .build();
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  /** One forged stream: what it received, and how the worker ended it. */
  static final class Stream implements StreamObserver<Ack> {
    final List<Ack> acks = new CopyOnWriteArrayList<>();
    final CompletableFuture<Status> end = new CompletableFuture<>();
    private StreamObserver<Frame> out;

    void send(Frame frame) {
      out.onNext(frame);
    }

    void complete() {
      out.onCompleted();
    }

    /** The position the worker's first ack named, i.e. what it has delivered on the channel. */
    long firstAckPosition() {
      return acks.get(0).getPosition();
    }

    @Override
    public void onNext(Ack ack) {
      acks.add(ack);
    }

    @Override
    public void onError(Throwable t) {
      end.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      end.complete(Status.OK);
    }
  }
}
