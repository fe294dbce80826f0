package io.cutpoint.client.session;

import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.LocalCopyHeld;
import io.cutpoint.client.chunks.ChunkRef;
import io.cutpoint.client.chunks.StateContent;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Local recovery: the worker's newest uploaded piece of state, kept in one file on its own disk, so
 * that a rollback to that snapshot restores from disk instead of downloading the state. The file
 * holds the snapshot id, the state's size and CRC32C, its content chunk list (SHA-256, length and
 * CRC32C of each chunk, as the upload's header listed them), the state's bytes, and a CRC32C of all
 * of it; it is written to a temporary file, synced and renamed over the last one. A restore uses it
 * only if the CRC32C holds and its list is the one the snapshot's header lists, chunk for chunk:
 * then the bytes are the ones the coordinator stored, without reading them from it.
 *
 * <p>{@link #held} names the copy on disk (from the file's head when it was opened, then from each
 * write); the worker reports it in its heartbeats, so that a rollback does not read that state from
 * the store before it halts the workers.
 *
 * <p>Threads: {@link #keep} runs on the caller's thread (the worker's loop) only to hand the work
 * to this copy's own writer thread, {@code cutpoint-ID-local}, which also runs the callback given
 * for a copy on disk; {@link #read} runs on the caller's; {@link #held} on any.
 */
final class LocalCopy implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LocalCopy.class);
  private static final int MAGIC = 0x43504c43; // "CPLC"
  private static final int VERSION = 2;
  private static final int HEAD_BYTES = 4 + 4 + 8 + 8 + 4 + 4;

  /** A copy read back and checked: its snapshot, chunk list and state bytes. */
  record Copy(long snapshotId, List<ContentChunk> content, byte[] state) {}

  private final Path file;
  private final String workerId;
  private final ExecutorService writer;
  private final Runnable onKept;
  private volatile LocalCopyHeld held;

  /**
   * The snapshot whose copy was found not to match (0: none): not read again, also before the
   * writer thread deleted it, so that a restore's retry downloads.
   */
  private volatile long rejected;

  /**
   * @param onKept runs on the writer thread after each copy is on disk
   */
  LocalCopy(Path dir, String workerId, Runnable onKept) {
    this.file = dir.resolve(workerId + ".state");
    this.workerId = workerId;
    this.onKept = onKept;
    this.held = head();
    this.writer =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "cutpoint-" + workerId + "-local");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Writes {@code content} as the copy of snapshot {@code snapshotId}, replacing the last one, on
   * the writer thread; a failure is logged and leaves the last copy. The content's arrays must not
   * change (the application's promise).
   */
  void keep(long snapshotId, StateContent content) {
    try {
      writer.execute(() -> write(snapshotId, content));
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      // closing: the copy on disk stays as it is
    }
  }

  private void write(long snapshotId, StateContent content) {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      Files.createDirectories(file.getParent());
      CRC32C crc = new CRC32C();
      try (FileChannel channel =
              FileChannel.open(
                  tmp,
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE,
                  StandardOpenOption.TRUNCATE_EXISTING);
          OutputStream out =
              new CheckedOutputStream(
                  new java.io.BufferedOutputStream(
                      java.nio.channels.Channels.newOutputStream(channel), 1 << 16),
                  crc)) {
        List<ChunkRef> recipe = content.recipe();
        ByteBuffer head = ByteBuffer.allocate(HEAD_BYTES + recipe.size() * 40);
        head.putInt(MAGIC).putInt(VERSION).putLong(snapshotId).putLong(content.size());
        head.putInt(content.crc32c()).putInt(recipe.size());
        for (ChunkRef c : recipe) {
          head.put(c.sha256()).putInt(c.length()).putInt(c.crc32c());
        }
        out.write(head.array());
        for (int i = 0; i < recipe.size(); i++) {
          content.chunk(i).writeTo(out);
        }
        out.flush();
        int sum = (int) crc.getValue();
        channel.write(ByteBuffer.allocate(4).putInt(sum).flip());
        channel.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      held = held(snapshotId, content.size(), content.crc32c());
      if (rejected == snapshotId) {
        rejected = 0; // written again since (a store that was reset hands out its ids again)
      }
      onKept.run();
    } catch (IOException | RuntimeException e) {
      log.warn(
          "worker {}: could not keep a local copy of snapshot {} in {}: {}",
          workerId,
          snapshotId,
          file,
          e.toString());
    }
  }

  /**
   * The copy on disk if it is of {@code snapshotId} and checks out (magic, CRC32C, sizes); empty
   * otherwise (none, another snapshot, damaged: a damaged one is logged).
   */
  Optional<Copy> read(long snapshotId) {
    if (snapshotId == rejected || !Files.exists(file)) {
      return Optional.empty();
    }
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
      CRC32C crc = new CRC32C();
      ByteBuffer fixed = readFully(in, HEAD_BYTES, crc);
      if (fixed.getInt() != MAGIC || fixed.getInt() != VERSION) {
        throw new IllegalStateException("not a local copy of this version");
      }
      long id = fixed.getLong();
      if (id != snapshotId) {
        return Optional.empty();
      }
      long size = fixed.getLong();
      fixed.getInt(); // the state's CRC32C, for held(): the chunks' list is what a restore checks
      int chunks = fixed.getInt();
      if (chunks < 0
          || size < 0
          || size > PieceAssembler.MAX_STATE_BYTES
          || in.size() != HEAD_BYTES + 40L * chunks + size + 4) {
        throw new IllegalStateException("its sizes do not match the file's");
      }
      ByteBuffer list = readFully(in, 40 * chunks, crc);
      List<ContentChunk> content = new ArrayList<>(chunks);
      for (int i = 0; i < chunks; i++) {
        byte[] sha = new byte[32];
        list.get(sha);
        content.add(
            ContentChunk.newBuilder()
                .setSha256(com.google.protobuf.ByteString.copyFrom(sha))
                .setLength(list.getInt())
                .setCrc32C(list.getInt())
                .build());
      }
      byte[] state = new byte[(int) size]; // the one array the restore hands over
      // in slices: a read into a heap buffer goes through a direct one of the same size
      for (int at = 0; at < state.length; ) {
        ByteBuffer into = ByteBuffer.wrap(state, at, Math.min(1 << 20, state.length - at));
        while (into.hasRemaining()) {
          if (in.read(into) < 0) {
            throw new IllegalStateException("it ends early");
          }
        }
        at = into.position();
      }
      crc.update(state);
      int sum = readFully(in, 4, null).getInt();
      if ((int) crc.getValue() != sum) {
        throw new IllegalStateException("it fails its CRC32C");
      }
      return Optional.of(new Copy(id, content, state));
    } catch (IOException | IllegalStateException | OutOfMemoryError e) {
      held = LocalCopyHeld.getDefaultInstance(); // not reported again until the next write
      log.warn(
          "worker {}: the local copy {} cannot be used ({}); the state is downloaded",
          workerId,
          file,
          e.toString());
      return Optional.empty();
    }
  }

  private static ByteBuffer readFully(FileChannel in, int bytes, CRC32C crc) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(bytes);
    while (b.hasRemaining()) {
      if (in.read(b) < 0) {
        throw new IllegalStateException("it ends early");
      }
    }
    if (crc != null) {
      crc.update(b.array(), 0, bytes);
    }
    return b.flip();
  }

  /**
   * The copy on disk as its head names it (snapshot, state size and CRC32C), not read through; the
   * default instance (snapshot 0) when there is none, or the last read found it unusable.
   */
  LocalCopyHeld held() {
    return held;
  }

  private static LocalCopyHeld held(long snapshotId, long bytes, int crc32c) {
    return LocalCopyHeld.newBuilder()
        .setSnapshotId(snapshotId)
        .setStateBytes(bytes)
        .setStateCrc32C(crc32c)
        .build();
  }

  /** The head of the copy on disk, if there is one of this version. */
  private LocalCopyHeld head() {
    if (!Files.exists(file)) {
      return LocalCopyHeld.getDefaultInstance();
    }
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer fixed = readFully(in, HEAD_BYTES, null);
      if (fixed.getInt() != MAGIC || fixed.getInt() != VERSION) {
        return LocalCopyHeld.getDefaultInstance();
      }
      return held(fixed.getLong(), fixed.getLong(), fixed.getInt());
    } catch (IOException | IllegalStateException e) {
      return LocalCopyHeld.getDefaultInstance();
    }
  }

  /**
   * Deletes the copy of {@code snapshotId} (it did not match what the coordinator stored), on the
   * writer thread, unless a newer copy has replaced it meanwhile. From now on it is not read, nor
   * reported as held.
   */
  void discard(long snapshotId) {
    rejected = snapshotId;
    if (held.getSnapshotId() == snapshotId) {
      held = LocalCopyHeld.getDefaultInstance(); // not offered to the coordinator any more
    }
    try {
      writer.execute(
          () -> {
            long onDisk = head().getSnapshotId(); // 0: no readable copy
            if (onDisk != snapshotId && onDisk != 0) {
              return; // a newer copy, written since it was read
            }
            held = LocalCopyHeld.getDefaultInstance();
            try {
              Files.deleteIfExists(file);
            } catch (IOException e) {
              log.warn(
                  "worker {}: cannot delete the local copy {}: {}", workerId, file, e.toString());
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      // closing: the next read checks the copy against the manifest again
    }
  }

  /** Waits for the copy being written, at most {@code timeout}; any thread. */
  @Override
  public void close() {
    writer.shutdown();
    try {
      if (!writer.awaitTermination(10, TimeUnit.SECONDS)) {
        writer.shutdownNow();
      }
    } catch (InterruptedException e) {
      writer.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
