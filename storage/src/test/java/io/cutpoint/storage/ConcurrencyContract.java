package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link SnapshotStore} does under concurrent calls: workers uploading at once produce
 * an intact snapshot; a piece accepted while a commit races is in the committed snapshot and later
 * ones are refused; close waits for a streaming read, and later calls fail. {@code ConcurrencyTest}
 * runs it on RocksDB, {@code S3ConcurrencyTest} on a real ZooKeeper and a real S3 API server.
 */
abstract class ConcurrencyContract {
  private final ExecutorService pool = Executors.newFixedThreadPool(3);

  /**
   * Every wait of these tests is bounded: a lost wake-up fails the test instead of hanging the
   * build.
   */
  private static final long WAIT_SECONDS = 60;

  /** A new store. */
  abstract SnapshotStore open();

  /** The snapshot the concurrent uploads write: many small writes where they are cheap. */
  abstract SnapshotFixture concurrentUploads(long id);

  @AfterEach
  void stopPool() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void workersUploadingAtOnceProduceAnIntactSnapshot() throws Exception {
    try (SnapshotStore store = open()) {
      SnapshotFixture snap = concurrentUploads(store.allocateSnapshotId());
      store.createPending(snap.pending());
      List<Future<?>> uploads = new ArrayList<>();
      for (String w : SnapshotFixture.WORKERS) {
        uploads.add(pool.submit(() -> snap.writeWorker(store, w)));
      }
      snap.writeChannels(store);
      for (Future<?> f : uploads) {
        f.get(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      store.commit(snap.complete());
      store.verifyIntegrity(snap.id);
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(snap.readState(store, w)).isEqualTo(snap.states.get(w));
      }
    }
  }

  @Test
  void aPieceAcceptedWhileCommitRacesIsInTheCommittedSnapshotAndLaterOnesAreRefused()
      throws Exception {
    try (SnapshotStore store = open()) {
      SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
      store.createPending(snap.pending());
      snap.writePieces(store);
      ChannelId extra = ChannelId.of("x", "a");
      List<InTransitMessage> accepted = new ArrayList<>();
      AtomicReference<Throwable> refusal = new AtomicReference<>();
      CountDownLatch started = new CountDownLatch(1);
      Future<?> writer =
          pool.submit(
              () -> {
                for (long seq = 1; ; seq++) {
                  InTransitMessage m = new InTransitMessage(seq, new byte[] {(byte) seq});
                  try {
                    store.putChannelRecording(snap.id, extra, List.of(m));
                  } catch (StoreException e) {
                    refusal.set(e);
                    return;
                  }
                  accepted.add(m);
                  started.countDown();
                }
              });
      assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the writer got going").isTrue();
      store.commit(snap.complete());
      writer.get(WAIT_SECONDS, TimeUnit.SECONDS);

      assertThat(refusal.get()).isInstanceOf(NotPendingException.class);
      assertThat(store.readChannel(snap.id, extra)).isEqualTo(accepted);
      long expected = (long) accepted.size() + snap.recordings.get(ChannelId.of("c", "a")).size();
      assertThat(
              store.manifest(snap.id).orElseThrow().getPiecesList().stream()
                  .filter(p -> p.getWorkerId().equals("a"))
                  .findFirst()
                  .orElseThrow()
                  .getInFlightMessages())
          .isEqualTo(expected);
      store.verifyIntegrity(snap.id);
    }
  }

  @Test
  void closeWaitsForAStreamingReadThenLaterCallsFail() throws Exception {
    SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    snap.store(store);
    CountDownLatch inSink = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<Integer> read =
        pool.submit(
            () ->
                store.readState(
                    snap.id,
                    "a",
                    chunk -> {
                      inSink.countDown();
                      try {
                        release.await(WAIT_SECONDS, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }));
    assertThat(inSink.await(WAIT_SECONDS, TimeUnit.SECONDS))
        .as("the read reached its sink")
        .isTrue();
    AtomicReference<Thread> closer = new AtomicReference<>();
    CompletableFuture<Void> closed =
        CompletableFuture.runAsync(
            () -> {
              closer.set(Thread.currentThread());
              store.close();
            },
            pool);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> closer.get() != null && closer.get().getState() == Thread.State.WAITING);
    assertThat(closed).isNotDone();
    release.countDown();
    assertThat(read.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .isEqualTo((snap.states.get("a").length + 1023) / 1024);
    closed.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThatThrownBy(() -> store.manifest(snap.id)).hasMessageContaining("is closed");
  }
}
