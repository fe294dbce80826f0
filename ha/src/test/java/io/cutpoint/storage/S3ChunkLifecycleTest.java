package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.cutpoint.ha.S3SnapshotStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * The object store's chunks and leftovers under races and failures that the contract cases do not
 * reach, through an S3 client that runs a hook when the store lists the snapshot directories and
 * that can lose the answer of a {@code DeleteObjects}. Each case committed a COMPLETE snapshot that
 * could not be read, before its fix.
 */
class S3ChunkLifecycleTest {
  private static HaTestbed bed;
  private S3SnapshotStore.Location where;

  /** Runs once when the store lists the snapshot directories (Leftovers.sweep). */
  private volatile Runnable onListSnapshotDirs;

  /** Whether the next DeleteObjects of chunks goes through but its answer is lost. */
  private volatile boolean loseAnswerOfChunkDelete;

  /** Runs once when a chunk is PUT, before it is; then once when the store lists the chunks. */
  private volatile Runnable onPutChunk;

  private volatile Runnable onListChunks;

  @BeforeAll
  static void start() throws Exception {
    bed = new HaTestbed();
  }

  @AfterAll
  static void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void freshLocation() {
    where = bed.fresh();
  }

  @SuppressWarnings("unchecked")
  private S3Client hooked() {
    S3Client real = bed.s3.client();
    return (S3Client)
        Proxy.newProxyInstance(
            S3Client.class.getClassLoader(),
            new Class<?>[] {S3Client.class},
            (proxy, method, args) -> {
              if (method.getName().equals("listObjectsV2Paginator")
                  && args[0] instanceof Consumer<?> c) {
                ListObjectsV2Request.Builder b = ListObjectsV2Request.builder();
                ((Consumer<ListObjectsV2Request.Builder>) c).accept(b);
                ListObjectsV2Request r = b.build();
                Runnable hook = onListSnapshotDirs;
                if (hook != null
                    && "/".equals(r.delimiter())
                    && r.prefix().endsWith("/snapshots/")) {
                  onListSnapshotDirs = null;
                  hook.run();
                }
                Runnable chunks = onListChunks;
                if (chunks != null && r.prefix().endsWith("/chunks/")) {
                  onListChunks = null;
                  chunks.run();
                }
                return real.listObjectsV2Paginator(r);
              }
              if (method.getName().equals("deleteObjects") && args[0] instanceof Consumer<?> c) {
                DeleteObjectsRequest.Builder b = DeleteObjectsRequest.builder();
                ((Consumer<DeleteObjectsRequest.Builder>) c).accept(b);
                DeleteObjectsRequest r = b.build();
                var answer = real.deleteObjects(r);
                if (loseAnswerOfChunkDelete
                    && r.delete().objects().stream().anyMatch(o -> o.key().contains("/chunks/"))) {
                  loseAnswerOfChunkDelete = false;
                  throw SdkClientException.create("connection reset (answer lost)");
                }
                return answer;
              }
              if (method.getName().equals("putObject") && args[0] instanceof Consumer<?> c) {
                PutObjectRequest.Builder b = PutObjectRequest.builder();
                ((Consumer<PutObjectRequest.Builder>) c).accept(b);
                Runnable put = onPutChunk;
                if (put != null && b.build().key().contains("/chunks/")) {
                  onPutChunk = null;
                  put.run();
                }
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private S3SnapshotStore open() {
    return S3SnapshotStore.open(hooked(), bed.zk, where, bed.take(where), HaTestbed.OPTIONS);
  }

  private static SnapshotFixture shared(long id, int changed) {
    return ContentChunksContract.shared(id, changed);
  }

  /**
   * Retention's sweep of leftovers takes the pending ids once, before it lists the snapshot
   * directories: a snapshot created in between loses its pieces, and then commits.
   */
  @Test
  void retentionDoesNotRemoveThePiecesOfASnapshotCreatedWhileItRuns() {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    try (S3SnapshotStore store = open()) {
      first.storeContent(store);
      onListSnapshotDirs =
          () -> {
            store.createPending(second.pending());
            SnapshotFixture.WORKERS.forEach(w -> second.writeWorkerContent(store, w));
          };
      assertThat(store.applyRetention(5)).isEmpty();
      second.writeChannels(store);
      store.commit(second.complete());
      assertThat(store.manifest(2).orElseThrow().getStatus())
          .isEqualTo(io.cutpoint.api.v1.SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      ContentChunksContract.assertReadsBack(store, second);
    }
  }

  /**
   * A deposed leader that has not yet made a catalog write runs retention with nothing to delete:
   * its sweep of leftovers removes the pieces of the new leader's pending snapshot.
   */
  @Test
  void aDeposedLeadersRetentionLeavesTheNewLeadersPendingSnapshotAlone() {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    try (S3SnapshotStore old = open()) {
      first.storeContent(old);
      try (S3SnapshotStore leader = open()) {
        leader.createPending(second.pending());
        SnapshotFixture.WORKERS.forEach(w -> second.writeWorkerContent(leader, w));
        second.writeChannels(leader);

        old.applyRetention(5); // nothing to delete: no catalog write, so not fenced

        leader.commit(second.complete());
        ContentChunksContract.assertReadsBack(leader, second);
      }
    }
  }

  /**
   * A deposed leader may read the catalog from a ZooKeeper server that lags behind: a newer
   * leader's snapshot then has objects in the bucket but no manifest that it can see. Its retention
   * judges only the ids that its term or an earlier one may have used.
   */
  @Test
  void aDeposedLeadersRetentionLeavesObjectsAboveItsIdsAloneEvenWithoutAVisibleManifest() {
    try (S3SnapshotStore old = open()) {
      long newer = old.allocateSnapshotId() + 1_000_000;
      String key = where.prefix() + "/snapshots/" + newer + "/w1/meta";
      bed.putRaw(key, new byte[] {1});

      old.applyRetention(5);

      assertThat(
              bed.s3.client().listObjectsV2(b -> b.bucket(where.bucket()).prefix(key)).keyCount())
          .isEqualTo(1);
    }
  }

  /**
   * A DeleteObjects of chunks that went through but whose answer was lost (or that failed for some
   * keys) leaves the chunks in the store's memory of the bucket: the next FindChunks holds them,
   * and a snapshot commits COMPLETE with chunks that are gone.
   */
  @Test
  void aChunkDeletionWhoseAnswerIsLostLeavesNoCommittedSnapshotWithAMissingChunk() {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 0);
    try (S3SnapshotStore store = open()) {
      first.storeContent(store);
      loseAnswerOfChunkDelete = true;
      assertThat(store.delete(1)).isTrue(); // the release's failure is logged, not thrown
      assertThat(storedHashes()).as("the chunks are gone from the bucket").isEmpty();
      second.storeContent(store);
      ContentChunksContract.assertReadsBack(store, second);
    }
  }

  /**
   * A collection keeps what pending snapshots use when it starts, and what they hold or store
   * after. A chunk whose upload began before it started and ended before it decided was kept by
   * neither, and was deleted while its snapshot went on to commit.
   */
  @Test
  void aChunkStoredWhileACollectionRunsIsKeptForItsSnapshot() throws Exception {
    SnapshotFixture snapshot = shared(1, 0);
    CountDownLatch putStarted = new CountDownLatch(1);
    CountDownLatch collecting = new CountDownLatch(1);
    try (S3SnapshotStore store = open()) {
      store.createPending(snapshot.pending());
      onPutChunk =
          () -> {
            putStarted.countDown();
            await(collecting);
          };
      Thread writer =
          new Thread(
              () -> SnapshotFixture.WORKERS.forEach(w -> snapshot.writeWorkerContent(store, w)),
              "writer");
      onListChunks =
          () -> {
            collecting.countDown(); // the collection has taken what pending snapshots use
            join(writer); // every chunk is stored before the collection decides
          };
      writer.start();
      await(putStarted);
      store.sweepLeftovers(); // as a new leader that deferred its collection runs it
      join(writer);

      snapshot.writeChannels(store);
      store.commit(snapshot.complete());
      ContentChunksContract.assertReadsBack(store, snapshot);
    }
  }

  /**
   * A chunk that a read found missing or bad is no longer held for new snapshots: every later
   * snapshot with the same bytes committed COMPLETE without sending them, as unrestorable as the
   * first, and one that sent them did not write them again.
   */
  @ParameterizedTest(name = "object {0}")
  @ValueSource(strings = {"lost", "damaged"})
  void aDamagedChunkIsUploadedAgainAndRepairsTheSnapshotsThatShareIt(String how) {
    SnapshotFixture first = shared(1, 0);
    try (S3SnapshotStore store = open()) {
      first.storeContent(store);
      ByteString bad = first.contentMeta("a").getContent(9).getSha256();
      String hex = java.util.HexFormat.of().formatHex(bad.toByteArray());
      String key =
          bed.objects(where).stream()
              .filter(k -> k.startsWith(where.prefix() + "/chunks/" + hex))
              .findFirst()
              .orElseThrow();
      if (how.equals("lost")) {
        bed.deleteRaw(key);
      } else {
        bed.putRaw(key, new byte[] {1, 2, 3});
      }
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.verifyIntegrity(1))
          .isInstanceOf(CorruptionException.class);

      SnapshotFixture second = shared(2, 3); // chunk 9 as in the first
      second.storeContent(store);
      store.verifyIntegrity(2);
      store.verifyIntegrity(1); // the same bytes, stored again, repaired it
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void join(Thread t) {
    try {
      t.join(30_000);
      assertThat(t.isAlive()).isFalse();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private java.util.Set<ByteString> storedHashes() {
    java.util.Set<ByteString> out = new java.util.HashSet<>();
    String root = where.prefix() + "/chunks/";
    for (String key : bed.objects(where)) {
      if (key.startsWith(root)) {
        String hex = key.substring(root.length(), key.indexOf('-', root.length()));
        out.add(ByteString.copyFrom(java.util.HexFormat.of().parseHex(hex)));
      }
    }
    return out;
  }
}
