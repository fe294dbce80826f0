package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.StateChunk;
import io.cutpoint.api.v1.UploadHeader;
import io.grpc.Channel;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A download parses its state chunks in place and hands every one back, whether the piece completes
 * or fails a check halfway, over gRPC's Netty transport and in-process; the piece is the one sent.
 * A chunk's bytes stay as they were until it is released, and its array is reused after that; any
 * other part owns its bytes from the start.
 */
class DownloadPartsTest {

  private static final long SNAPSHOT = 5;

  private final FakeCoordinator fake = new FakeCoordinator();
  private final SessionThreads.OwnLoop loop = SessionThreads.ownLoop("cutpoint-test-download");
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void serve() throws Exception {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(fake)
            .build()
            .start();
    channel =
        Grpc.newChannelBuilder("localhost:" + server.getPort(), InsecureChannelCredentials.create())
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    SessionThreads.executor(loop.executor(), Duration.ofSeconds(10), "test-download");
  }

  /** Header, 48 state chunks of 64 KiB, the recordings and the trailer of worker w's piece. */
  private static List<DownloadPart> piece(byte[] state) {
    return Pieces.asDownload(Pieces.uploadParts(Pieces.completed(SNAPSHOT, state), 1, 64 << 10));
  }

  private static long chunks(List<DownloadPart> parts) {
    return parts.stream().filter(DownloadPart::hasStateChunk).count();
  }

  /** Downloads w's piece through {@code over}: the state, or the reason it failed. */
  private static Object download(SnapshotDownloader downloader, SessionThreads.OwnLoop loop)
      throws Exception {
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    loop.execute(
        () ->
            downloader.start(
                SNAPSHOT,
                "w",
                new SnapshotDownloader.Outcome() {
                  @Override
                  public void downloaded(PieceAssembler.Restorable piece) {
                    outcome.complete(piece.state());
                  }

                  @Override
                  public void failed(String reason) {
                    outcome.complete(reason);
                  }
                }));
    return outcome.get(30, TimeUnit.SECONDS);
  }

  private SnapshotDownloader downloader(Channel over) {
    return new SnapshotDownloader(over, loop, Duration.ofSeconds(30));
  }

  @Test
  void overNettyEveryChunkIsParsedInPlaceAndHandedBack() throws Exception {
    byte[] state = Pieces.state(3 << 20, 9);
    List<DownloadPart> parts = piece(state);
    fake.downloads.put(SNAPSHOT, List.of(parts));
    SnapshotDownloader downloader = downloader(channel);

    assertThat(download(downloader, loop)).isEqualTo(state);
    assertThat(downloader.parts().parsedInPlace()).isEqualTo(chunks(parts)).isEqualTo(48);
    assertThat(downloader.parts().held()).isZero();
  }

  @Test
  void aChunkThatFailsItsCheckEndsTheDownloadAndNoChunkIsHeldAfterwards() throws Exception {
    List<DownloadPart> parts = new ArrayList<>(piece(Pieces.state(3 << 20, 10)));
    int tenth = 10;
    DownloadPart bad = parts.get(tenth);
    assertThat(bad.hasStateChunk()).isTrue();
    byte[] flipped = bad.getStateChunk().getData().toByteArray();
    flipped[100] ^= 1;
    parts.set(
        tenth,
        bad.toBuilder()
            .setStateChunk(bad.getStateChunk().toBuilder().setData(ByteString.copyFrom(flipped)))
            .build());
    fake.downloads.put(SNAPSHOT, List.of(parts));
    SnapshotDownloader downloader = downloader(channel);

    assertThat(download(downloader, loop))
        .asString()
        .contains("state chunk " + (tenth - 1) + " has CRC32C");
    // the parts already in flight when the check failed are handed back as the loop drops them
    await().atMost(Duration.ofSeconds(10)).until(() -> downloader.parts().held() == 0);
    assertThat(downloader.parts().parsedInPlace()).isPositive();
  }

  @Test
  void inProcessTooEveryChunkIsParsedInPlaceAndHandedBack() throws Exception {
    byte[] state = Pieces.state(1 << 20, 11);
    try (InProcessCoordinator in = new InProcessCoordinator()) {
      in.fake.downloads.put(SNAPSHOT, List.of(piece(state)));
      SnapshotDownloader downloader = downloader(in.channel);

      assertThat(download(downloader, loop)).isEqualTo(state);
      assertThat(downloader.parts().parsedInPlace()).isEqualTo(16);
      assertThat(downloader.parts().held()).isZero();
    }
  }

  private static DownloadPart chunk(int index, byte[] data) {
    return DownloadPart.newBuilder()
        .setStateChunk(StateChunk.newBuilder().setIndex(index).setData(ByteString.copyFrom(data)))
        .build();
  }

  @Test
  void aChunkKeepsItsBytesUntilItIsReleasedAndItsArrayIsReusedOnlyAfter() {
    byte[] first = Pieces.state(100_000, 12);
    byte[] second = Pieces.state(100_000, 13);
    DownloadParts parts = new DownloadParts();

    DownloadPart a = parts.parse(new Known(chunk(1, first).toByteArray()));
    DownloadPart b = parts.parse(new Known(chunk(2, second).toByteArray()));
    assertThat(parts.held()).isEqualTo(2);
    assertThat(a.getStateChunk().getData().toByteArray()).isEqualTo(first);
    assertThat(b.getStateChunk().getData().toByteArray()).isEqualTo(second);

    parts.release(a);
    parts.release(a);
    assertThat(parts.held()).isOne();
    DownloadPart c = parts.parse(new Known(chunk(3, second).toByteArray()));
    assertThat(c.getStateChunk().getData().toByteArray()).isEqualTo(second);
    assertThat(a.getStateChunk().getData().toByteArray())
        .as("a was parsed in place, and its array went to the next part once released")
        .isEqualTo(second);
    assertThat(b.getStateChunk().getIndex()).isEqualTo(2);
    assertThat(parts.parsedInPlace()).isEqualTo(3);
  }

  @Test
  void aHeaderOwnsItsBytesAndItsArrayIsReusedAtOnce() {
    ByteString hash = ByteString.copyFrom(Pieces.state(32, 13));
    DownloadPart header =
        DownloadPart.newBuilder()
            .setHeader(
                UploadHeader.newBuilder()
                    .setMeta(
                        LocalSnapshotMeta.newBuilder()
                            .setSnapshotId(SNAPSHOT)
                            .setWorkerId("w")
                            .addContent(
                                ContentChunk.newBuilder().setSha256(hash).setLength(1 << 16))))
            .build();
    DownloadParts parts = new DownloadParts();

    DownloadPart parsed = parts.parse(new Known(header.toByteArray()));
    assertThat(parts.held()).isZero();
    // the next part is read into the same array: the header must not be reading it
    parts.parse(new Known(chunk(4, Pieces.state(header.getSerializedSize(), 14)).toByteArray()));
    assertThat(parsed).isEqualTo(header);
    assertThat(parsed.getHeader().getMeta().getContent(0).getSha256()).isEqualTo(hash);
  }

  /** A message as gRPC hands it to a marshaller: a stream that knows its length. */
  private static final class Known extends java.io.ByteArrayInputStream
      implements io.grpc.KnownLength {
    Known(byte[] bytes) {
      super(bytes);
    }
  }
}
