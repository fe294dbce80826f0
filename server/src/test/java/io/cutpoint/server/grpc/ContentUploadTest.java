package io.cutpoint.server.grpc;

import static io.cutpoint.server.testing.RawPair.statusOf;
import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.cutpoint.api.Crc32c;
import io.cutpoint.api.Sha256;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.ChunkAnswer;
import io.cutpoint.api.v1.ChunkQuery;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.UploadHeader;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadTrailer;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.cutpoint.storage.RawStore;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksIterator;

/**
 * Two raw workers a <-> b upload content-addressed states by hand: the coordinator stores a chunk
 * once, across snapshots and workers, sends back what it holds, and refuses chunks and lists that
 * do not match, whatever a worker claims.
 */
class ContentUploadTest {
  private static final int CHUNK = 1000;

  @TempDir Path dir;
  private RawPair pair;
  private InProcessCoordinator coordinator;

  @BeforeEach
  void setUp() throws Exception {
    pair =
        new RawPair(
            InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build());
    coordinator = pair.coordinator;
  }

  @AfterEach
  void tearDown() throws Exception {
    pair.close();
  }

  private static byte[] random(int bytes, long seed) {
    byte[] b = new byte[bytes];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static List<byte[]> cut(byte[] state) {
    List<byte[]> out = new ArrayList<>();
    for (int off = 0; off < state.length; off += CHUNK) {
      out.add(java.util.Arrays.copyOfRange(state, off, Math.min(state.length, off + CHUNK)));
    }
    return out;
  }

  private static ContentChunk listed(byte[] chunk) {
    return ContentChunk.newBuilder()
        .setSha256(ByteString.copyFrom(Sha256.of(chunk)))
        .setLength(chunk.length)
        .setCrc32C(Crc32c.of(chunk))
        .build();
  }

  /** a's counters (3 sent to b), or b's (1 received, 2 and 3 recorded). */
  private static LocalSnapshotMeta.Builder counters(long id, String worker) {
    return worker.equals("a")
        ? meta(id, "a").addSent(counter("b", 3)).addReceived(counter("b", 0))
        : meta(id, "b").addSent(counter("a", 0)).addReceived(counter("a", 1));
  }

  private static ChannelRecording recording(String worker) {
    if (worker.equals("a")) {
      return ChannelRecording.newBuilder().setFrom("b").build();
    }
    ChannelRecording.Builder r = ChannelRecording.newBuilder().setFrom("a");
    for (long s : new long[] {2, 3}) {
      r.addMessages(
          RecordedMessage.newBuilder().setSeq(s).setPayload(ByteString.copyFromUtf8("m" + s)));
    }
    return r.build();
  }

  private ChunkAnswer find(RawWorker w, long id, List<ContentChunk> content) {
    ChunkQuery.Builder q = ChunkQuery.newBuilder().setSnapshotId(id).setWorkerId(w.id);
    content.forEach(c -> q.addSha256(c.getSha256()));
    return w.blockingTransfers(coordinator.channel).findChunks(q.build());
  }

  /** The upload of {@code state}'s chunks at {@code send}, with {@code content} in the header. */
  private static List<UploadPart> upload(
      long id, String worker, byte[] state, List<ContentChunk> content, List<Integer> send) {
    LocalSnapshotMeta.Builder meta =
        counters(id, worker)
            .setStateBytes(state.length)
            .setStateCrc32C(Crc32c.of(state))
            .addAllContent(content);
    List<UploadPart> parts = new ArrayList<>();
    parts.add(UploadPart.newBuilder().setHeader(UploadHeader.newBuilder().setMeta(meta)).build());
    List<byte[]> chunks = cut(state);
    for (int i : send) {
      parts.add(RawWorker.chunk(i, chunks.get(i)));
    }
    ChannelRecording r = recording(worker);
    parts.add(UploadPart.newBuilder().setChannel(r).build());
    parts.add(
        UploadPart.newBuilder()
            .setTrailer(
                UploadTrailer.newBuilder()
                    .setStateChunks(send.size())
                    .setRecordedMessages(r.getMessagesCount()))
            .build());
    return parts;
  }

  /** Asks which chunks the store lacks, then uploads those. */
  private void store(RawWorker w, long id, byte[] state) throws Exception {
    List<ContentChunk> content = cut(state).stream().map(ContentUploadTest::listed).toList();
    List<Integer> missing = find(w, id, content).getMissingList();
    assertThat(
            statusOf(
                RawWorker.send(coordinator.async(), upload(id, w.id, state, content, missing))))
        .isEqualTo(Status.OK);
  }

  private SnapshotManifest manifest(long id) {
    return coordinator
        .admin()
        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
        .getManifest();
  }

  private long trigger() {
    return coordinator
        .admin()
        .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance())
        .getSnapshotId();
  }

  private byte[] download(RawWorker w, long id) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Iterator<DownloadPart> parts =
        w.blockingTransfers(coordinator.channel).downloadSnapshot(w.downloadRequest(id));
    parts.forEachRemaining(
        p -> {
          if (p.hasStateChunk()) {
            out.writeBytes(p.getStateChunk().getData().toByteArray());
          }
        });
    return out.toByteArray();
  }

  private double count(String name) {
    return coordinator.registry.get(name).counter().count();
  }

  @Test
  void aChunkIsUploadedOnceAcrossSnapshotsAndWorkersAndEveryStateDownloadsWhole() throws Exception {
    long first = pair.snapshotId;
    byte[] stateA = random(10 * CHUNK + 17, 1);
    byte[] stateB = random(4 * CHUNK, 2);
    store(pair.a, first, stateA);
    store(pair.b, first, stateB);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> manifest(first).getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(manifest(first).getPieces(0).getMeta().getContentCount())
        .as("the manifest's meta leaves the list out")
        .isZero();
    assertThat(manifest(first).getPieces(0).getStateChunks()).isEqualTo(11);

    long second = trigger();
    List<ContentChunk> ofA = cut(stateA).stream().map(ContentUploadTest::listed).toList();
    assertThat(find(pair.a, second, ofA).getMissingList()).as("a's own state, held").isEmpty();
    // b now holds a's state with one chunk changed: only that one goes up
    byte[] bNow = stateA.clone();
    bNow[5 * CHUNK + 3] ^= 1;
    List<ContentChunk> ofB = cut(bNow).stream().map(ContentUploadTest::listed).toList();
    assertThat(find(pair.b, second, ofB).getMissingList()).containsExactly(5);
    assertThat(
            statusOf(
                RawWorker.send(coordinator.async(), upload(second, "a", stateA, ofA, List.of()))))
        .isEqualTo(Status.OK);
    assertThat(
            statusOf(
                RawWorker.send(coordinator.async(), upload(second, "b", bNow, ofB, List.of(5)))))
        .isEqualTo(Status.OK);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> manifest(second).getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);

    assertThat(download(pair.a, first)).isEqualTo(stateA);
    assertThat(download(pair.b, first)).isEqualTo(stateB);
    assertThat(download(pair.a, second)).isEqualTo(stateA);
    assertThat(download(pair.b, second)).isEqualTo(bNow);
    assertThat(count("cutpoint.state.uploaded"))
        .as("the first snapshot whole, then one chunk")
        .isEqualTo(stateA.length + stateB.length + CHUNK);
    assertThat(count("cutpoint.state.deduplicated")).isEqualTo(stateA.length + bNow.length - CHUNK);
    assertThat(count("cutpoint.content.chunks.held")).isEqualTo(11 + 10);
  }

  /**
   * A reference count that fails its check is lasting damage, not a passing failure: the query is
   * refused with DATA_LOSS. It was UNAVAILABLE, which a worker's session takes for a coordinator it
   * could not reach, and leaves for another one.
   */
  @Test
  void aQueryOfAChunkWhoseReferenceCountIsDamagedIsRefusedAsDataLoss() throws Exception {
    long first = pair.snapshotId;
    byte[] stateA = random(3 * CHUNK, 1);
    store(pair.a, first, stateA);
    store(pair.b, first, random(CHUNK, 2));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> manifest(first).getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    pair.close();
    int damaged = 0;
    try (RawStore raw = RawStore.open(dir)) {
      ColumnFamilyHandle refs = raw.handle("content_refs");
      try (RocksIterator it = raw.db().newIterator(refs)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          byte[] value = it.value();
          value[0] ^= 1;
          raw.db().put(refs, it.key(), value);
          damaged++;
        }
      }
    }
    assertThat(damaged).isEqualTo(4);
    pair =
        new RawPair(
            InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build());
    coordinator = pair.coordinator;

    List<ContentChunk> ofA = cut(stateA).stream().map(ContentUploadTest::listed).toList();
    assertThatThrownBy(() -> find(pair.a, pair.snapshotId, ofA))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DATA_LOSS);
              assertThat(e.getStatus().getDescription()).contains("cutpoint store repair");
            });
  }

  @Test
  void aChunkWhoseBytesDoNotHashToTheListedSha256IsRefused() throws Exception {
    byte[] state = random(3 * CHUNK, 3);
    List<ContentChunk> content =
        new ArrayList<>(cut(state).stream().map(ContentUploadTest::listed).toList());
    // same length and CRC32C, another hash: the header adds up, the chunk does not match
    content.set(1, content.get(1).toBuilder().setSha256(ByteString.copyFrom(new byte[32])).build());
    Status s =
        statusOf(
            RawWorker.send(
                coordinator.async(),
                upload(pair.snapshotId, "a", state, content, List.of(0, 1, 2))));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("content chunk 1 does not have the SHA-256");
  }

  @Test
  void aListThatDoesNotAddUpToTheStateIsRefusedWithTheHeader() throws Exception {
    byte[] state = random(3 * CHUNK, 4);
    List<ContentChunk> content = cut(state).stream().map(ContentUploadTest::listed).toList();
    List<UploadPart> parts = upload(pair.snapshotId, "a", state, content.subList(0, 2), List.of());
    Status s = statusOf(RawWorker.send(coordinator.async(), parts));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("content chunks add up to 2000 bytes");
  }

  @Test
  void aPieceThatLeavesOutAChunkTheStoreLacksNeverCommits() throws Exception {
    long id = pair.snapshotId;
    byte[] stateA = random(3 * CHUNK, 5);
    List<ContentChunk> content = cut(stateA).stream().map(ContentUploadTest::listed).toList();
    assertThat(find(pair.a, id, content).getMissingList()).containsExactly(0, 1, 2);
    assertThat(
            statusOf(
                RawWorker.send(
                    coordinator.async(), upload(id, "a", stateA, content, List.of(0, 2)))))
        .isEqualTo(Status.OK);
    store(pair.b, id, random(CHUNK, 6));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> manifest(id).getStatus() != SnapshotStatus.SNAPSHOT_STATUS_PENDING);
    assertThat(manifest(id).getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(manifest(id).getReason())
        .contains("content chunk 1")
        .contains("neither uploaded nor held");
  }

  @Test
  void queriesWithABadHashOrWithoutTheSessionSecretAreRefused() {
    ChunkQuery bad =
        ChunkQuery.newBuilder()
            .setSnapshotId(pair.snapshotId)
            .setWorkerId("a")
            .addSha256(ByteString.copyFrom(new byte[31]))
            .build();
    assertThatThrownBy(() -> pair.a.blockingTransfers(coordinator.channel).findChunks(bad))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("a SHA-256 has 32");
            });
    ChunkQuery good = bad.toBuilder().setSha256(0, ByteString.copyFrom(new byte[32])).build();
    assertThatThrownBy(() -> coordinator.blocking().findChunks(good))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
    ChunkQuery unknown = good.toBuilder().setSnapshotId(pair.snapshotId + 100).build();
    assertThatThrownBy(() -> pair.a.blockingTransfers(coordinator.channel).findChunks(unknown))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }
}
