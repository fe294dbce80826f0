package io.cutpoint.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Walks the snapshot ids that have keys in one column family (every key starts with the 8-byte id),
 * one seek per id, and steps over data blocks that fail RocksDB's block checksum instead of giving
 * up.
 *
 * <p>A seek to id {@code x} reads the one block that holds the first key at or after {@code x}. So
 * when a block is damaged, seeks land on it exactly for the ids between the last key of the block
 * before it and its own last key; past that, seeks read the next block again. The walk finds the
 * first readable id after a damaged block by doubling the step and then bisecting, and reports the
 * id range it could not read as a {@link Gap}: at most 128 seeks per damaged block.
 */
final class IdWalk {

  /** Ids {@code first..last} (inclusive) whose keys in the family could not be read, and why. */
  record Gap(long first, long last, String error) {
    boolean contains(long id) {
      return id >= first && id <= last;
    }

    @Override
    public String toString() {
      return last == Long.MAX_VALUE
          ? "ids from " + first
          : first == last ? "id " + first : "ids " + first + ".." + last;
    }
  }

  private static final long END = -1;
  private static final long DAMAGED = -2;

  private final RocksHandles rocks;
  private final ColumnFamilyHandle family;
  private String lastError;

  IdWalk(RocksHandles rocks, ColumnFamilyHandle family) {
    this.rocks = rocks;
    this.family = family;
  }

  /** Passes every readable id to {@code ids} in increasing order; returns what it stepped over. */
  List<Gap> walk(LongConsumer ids) {
    List<Gap> gaps = new ArrayList<>();
    long pos = 1;
    while (true) {
      long found = probe(pos);
      if (found == END) {
        return gaps;
      }
      if (found == DAMAGED) {
        String error = lastError;
        long next = firstReadableAfter(pos);
        gaps.add(new Gap(pos, next == END ? Long.MAX_VALUE : next - 1, error));
        if (next == END) {
          return gaps;
        }
        pos = next;
        continue;
      }
      ids.accept(found);
      if (found == Long.MAX_VALUE) {
        return gaps;
      }
      pos = found + 1;
    }
  }

  /** Receives the readable entries of {@link #entries}. */
  interface EntryVisitor {
    void visit(byte[] key, byte[] value) throws RocksDBException;
  }

  /**
   * Passes every readable entry to {@code visitor} in key order, stepping over damaged blocks; a
   * gap starts at the snapshot whose keys were being read when the damage was met.
   */
  List<Gap> entries(EntryVisitor visitor) {
    List<Gap> gaps = new ArrayList<>();
    long from = 1;
    while (true) {
      long lastId = -1;
      try (ReadOptions options = new ReadOptions().setFillCache(false);
          RocksIterator it = rocks.db.newIterator(family, options)) {
        for (it.seek(Keys.snapshot(from)); it.isValid(); it.next()) {
          lastId = Keys.snapshotIdOf(it.key());
          visitor.visit(it.key(), it.value());
        }
        it.status();
        return gaps;
      } catch (RocksDBException e) {
        if (!RocksHandles.isCorruption(e)) {
          throw rocks.fail("copy entries", e);
        }
        long start = lastId < 0 ? from : lastId + 1;
        if (start < 0) {
          return gaps;
        }
        long next = probe(start) != DAMAGED ? start : firstReadableAfter(start);
        gaps.add(
            new Gap(
                lastId < 0 ? start : lastId,
                next == END ? Long.MAX_VALUE : next - 1,
                e.getMessage()));
        if (next == END) {
          return gaps;
        }
        from = next;
      }
    }
  }

  /** The smallest id above {@code damaged} whose seek reads, or END if none does. */
  private long firstReadableAfter(long damaged) {
    long bad = damaged;
    long good = END;
    for (long step = 1; ; step <<= 1) {
      long x = bad + step;
      if (x < bad || step <= 0) { // overflow: nothing readable up to the largest id
        x = Long.MAX_VALUE;
      }
      if (probe(x) != DAMAGED) {
        good = x;
        break;
      }
      if (x == Long.MAX_VALUE) {
        return END;
      }
      bad = x;
    }
    while (good - bad > 1) { // invariant: probe(bad) is damaged, probe(good) reads
      long mid = bad + (good - bad) / 2;
      if (probe(mid) == DAMAGED) {
        bad = mid;
      } else {
        good = mid;
      }
    }
    return good;
  }

  /** The id of the first key at or after {@code id}, END, or DAMAGED. */
  private long probe(long id) {
    try (ReadOptions options = new ReadOptions().setFillCache(false);
        RocksIterator it = rocks.db.newIterator(family, options)) {
      it.seek(Keys.snapshot(id));
      if (it.isValid()) {
        return Keys.snapshotIdOf(it.key());
      }
      it.status();
      return END;
    } catch (RocksDBException e) {
      if (!RocksHandles.isCorruption(e)) {
        throw rocks.fail("scan snapshot ids", e);
      }
      lastError = e.getMessage();
      return DAMAGED;
    }
  }
}
