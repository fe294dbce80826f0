package io.cutpoint.ha;

import com.google.protobuf.InvalidProtocolBufferException;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.SnapshotStore.RollbackIntent;
import io.cutpoint.storage.StoreException;
import io.cutpoint.storage.StoreParts;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * The catalog of an {@link S3SnapshotStore} in ZooKeeper, under a base path:
 *
 * <pre>
 *   {base}/term                      the leader term number (see {@link Terms})
 *   {base}/catalog/epoch             the cluster epoch
 *   {base}/catalog/rollback          the rollback in progress (epoch, snapshot id), or nothing
 *   {base}/catalog/next_id           the first snapshot id not yet handed out
 *   {base}/catalog/snapshots/{id}    one manifest per snapshot; id as 19 zero-padded digits
 * </pre>
 *
 * <p>Every value is framed like every value of the RocksDB store: a format byte, the CRC32C of the
 * node's path below {@code base} followed by the payload, then the payload. Every write is one
 * ZooKeeper transaction whose first operation checks the version of the term node against the
 * store's {@link LeaderTerm}: a store opened under an older term can never write.
 */
final class Catalog {
  static final String TERM = "/term";
  static final String LEADER = "/leader";
  static final String EPOCH = "/catalog/epoch";
  static final String ROLLBACK = "/catalog/rollback";
  static final String NEXT_ID = "/catalog/next_id";
  static final String SNAPSHOTS = "/catalog/snapshots";

  /**
   * The largest manifest node this catalog writes. ZooKeeper answers a request larger than its
   * {@code jute.maxbuffer} (1 MiB less one byte by default) by closing the connection, and Curator
   * sends it again, and again: each drop suspends the session, which costs the leader its lead, and
   * the next leader meets the same manifest. The margin leaves room for the rest of a transaction
   * (the term check, paths, other nodes).
   */
  static final int MAX_MANIFEST_BYTES = Integer.getInteger("jute.maxbuffer", 0xfffff) - (64 << 10);

  /** A value with the version of the node it was read from. */
  record Versioned<T>(T value, int version) {}

  /** A write failed on an operation other than the term check (index counts from 0 after it). */
  static final class Conflict extends StoreException {
    private static final long serialVersionUID = 1L;
    final int index;
    final transient KeeperException.Code code;

    Conflict(String message, int index, KeeperException.Code code) {
      super(message);
      this.index = index;
      this.code = code;
    }
  }

  private final CuratorFramework zk;
  private final String base;
  private final LeaderTerm term;
  private final String store;

  /**
   * @param store names the store in messages
   */
  Catalog(CuratorFramework zk, String base, LeaderTerm term, String store) {
    this.zk = zk;
    this.base = base;
    this.term = term;
    this.store = store;
  }

  LeaderTerm term() {
    return term;
  }

  /** Creates the catalog's nodes that are missing, with their initial values. */
  static void ensure(CuratorFramework zk, String base) {
    create(zk, base, TERM, longPayload(0));
    create(zk, base, EPOCH, longPayload(0));
    create(zk, base, ROLLBACK, new byte[0]);
    create(zk, base, NEXT_ID, longPayload(1));
    create(zk, base, SNAPSHOTS, null);
  }

  private static void create(CuratorFramework zk, String base, String path, byte[] payload) {
    try {
      byte[] data = payload == null ? new byte[0] : StoreParts.frame(key(path), payload);
      zk.create().creatingParentsIfNeeded().forPath(base + path, data);
    } catch (KeeperException.NodeExistsException exists) {
      // made by an earlier open
    } catch (Exception e) {
      throw zkFailure("ZooKeeper " + base, "create catalog node " + path, e);
    }
  }

  /** Checks that the term node is still at the version of this store's term. */
  void checkTerm(String operation) {
    Versioned<Long> now = readLong(TERM, "leader term");
    if (now.version() != term.version()) {
      throw fenced(operation, now);
    }
  }

  // ---- reads ----

  Optional<Versioned<SnapshotManifest>> manifest(long id) {
    String path = snapshotPath(id);
    Optional<Versioned<byte[]>> raw = read(path, "read manifest of snapshot " + id);
    if (raw.isEmpty()) {
      return Optional.empty();
    }
    String piece = "snapshot " + id + ", manifest";
    byte[] payload = StoreParts.unframe(key(path), raw.get().value(), () -> piece);
    try {
      return Optional.of(new Versioned<>(SnapshotManifest.parseFrom(payload), raw.get().version()));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptionException(piece + ": unreadable: " + e.getMessage());
    }
  }

  /** Every snapshot id in the catalog, ascending. */
  List<Long> ids() {
    try {
      List<Long> ids = new ArrayList<>();
      for (String child : zk.getChildren().forPath(base + SNAPSHOTS)) {
        try {
          ids.add(Long.parseLong(child));
        } catch (NumberFormatException notOurs) {
          // a node someone else put there: not a snapshot
        }
      }
      ids.sort(null);
      return ids;
    } catch (Exception e) {
      throw zkFailure(store, "list the catalog", e);
    }
  }

  Versioned<Long> epoch() {
    return readLong(EPOCH, "epoch");
  }

  Versioned<Long> nextId() {
    return readLong(NEXT_ID, "snapshot id high-water mark");
  }

  Versioned<Optional<RollbackIntent>> rollback() {
    Versioned<byte[]> raw =
        read(ROLLBACK, "read rollback intent")
            .orElseThrow(
                () -> new StoreException(store + ": catalog node " + ROLLBACK + " missing"));
    byte[] payload =
        StoreParts.unframe(key(ROLLBACK), raw.value(), () -> "store metadata 'rollback_intent'");
    if (payload.length == 0) {
      return new Versioned<>(Optional.empty(), raw.version());
    }
    if (payload.length != 16) {
      throw new CorruptionException(
          "store metadata 'rollback_intent': " + payload.length + " bytes, expected 16");
    }
    ByteBuffer b = ByteBuffer.wrap(payload);
    return new Versioned<>(
        Optional.of(new RollbackIntent(b.getLong(), b.getLong())), raw.version());
  }

  private Versioned<Long> readLong(String path, String what) {
    Versioned<byte[]> raw =
        read(path, "read " + what)
            .orElseThrow(() -> new StoreException(store + ": catalog node " + path + " missing"));
    byte[] payload =
        StoreParts.unframe(key(path), raw.value(), () -> "store metadata '" + what + "'");
    if (payload.length != 8) {
      throw new CorruptionException(
          "store metadata '" + what + "': " + payload.length + " bytes, expected 8");
    }
    return new Versioned<>(ByteBuffer.wrap(payload).getLong(), raw.version());
  }

  private Optional<Versioned<byte[]>> read(String path, String operation) {
    try {
      Stat stat = new Stat();
      byte[] data = zk.getData().storingStatIn(stat).forPath(base + path);
      return Optional.of(new Versioned<>(data, stat.getVersion()));
    } catch (KeeperException.NoNodeException none) {
      return Optional.empty();
    } catch (Exception e) {
      throw zkFailure(store, operation, e);
    }
  }

  // ---- operations of a write ----

  CuratorOp createManifest(SnapshotManifest m) {
    byte[] data = manifestData(m);
    return op(
        () -> zk.transactionOp().create().forPath(base + snapshotPath(m.getSnapshotId()), data));
  }

  CuratorOp setManifest(SnapshotManifest m, int version) {
    byte[] data = manifestData(m);
    return op(
        () ->
            zk.transactionOp()
                .setData()
                .withVersion(version)
                .forPath(base + snapshotPath(m.getSnapshotId()), data));
  }

  CuratorOp checkManifest(long id, int version) {
    return op(
        () -> zk.transactionOp().check().withVersion(version).forPath(base + snapshotPath(id)));
  }

  CuratorOp deleteManifest(long id, int version) {
    return op(
        () -> zk.transactionOp().delete().withVersion(version).forPath(base + snapshotPath(id)));
  }

  CuratorOp setEpoch(long epoch, int version) {
    return setLong(EPOCH, epoch, version);
  }

  CuratorOp setNextId(long next, int version) {
    return setLong(NEXT_ID, next, version);
  }

  CuratorOp setRollback(Optional<RollbackIntent> intent, int version) {
    byte[] payload =
        intent
            .map(r -> ByteBuffer.allocate(16).putLong(r.epoch()).putLong(r.snapshotId()).array())
            .orElse(new byte[0]);
    return op(
        () ->
            zk.transactionOp()
                .setData()
                .withVersion(version)
                .forPath(base + ROLLBACK, StoreParts.frame(key(ROLLBACK), payload)));
  }

  private CuratorOp setLong(String path, long value, int version) {
    return op(
        () ->
            zk.transactionOp()
                .setData()
                .withVersion(version)
                .forPath(base + path, StoreParts.frame(key(path), longPayload(value))));
  }

  /**
   * @throws StoreException when the manifest is larger than a node may be ({@link
   *     #MAX_MANIFEST_BYTES}): nothing is sent
   */
  private byte[] manifestData(SnapshotManifest m) {
    byte[] data = StoreParts.frame(key(snapshotPath(m.getSnapshotId())), m.toByteArray());
    if (data.length > MAX_MANIFEST_BYTES) {
      throw new StoreException(
          String.format(
              "%s: the %s manifest of snapshot %d has %,d bytes, more than a ZooKeeper node may"
                  + " hold here (%,d: jute.maxbuffer less a margin); not written. Fewer workers or"
                  + " channels, shorter worker ids, or a larger jute.maxbuffer on every ZooKeeper"
                  + " server and coordinator",
              store, m.getStatus(), m.getSnapshotId(), data.length, MAX_MANIFEST_BYTES));
    }
    return data;
  }

  /**
   * Runs {@code ops} as one ZooKeeper transaction whose first operation checks the term node's
   * version.
   *
   * @return the results of {@code ops} (without the term check)
   * @throws FencedException if the term is no longer current: nothing was written
   * @throws Conflict if another operation failed (a node exists, a version changed)
   */
  List<CuratorTransactionResult> write(String operation, List<CuratorOp> ops) {
    List<CuratorOp> all = new ArrayList<>();
    all.add(op(() -> zk.transactionOp().check().withVersion(term.version()).forPath(base + TERM)));
    all.addAll(ops);
    try {
      List<CuratorTransactionResult> results = zk.transaction().forOperations(all);
      return results.subList(1, results.size());
    } catch (KeeperException e) {
      List<OpResult> results = e.getResults();
      if (results == null || results.isEmpty()) {
        throw zkFailure(store, operation, e);
      }
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i) instanceof OpResult.ErrorResult error && error.getErr() != 0) {
          KeeperException.Code code = KeeperException.Code.get(error.getErr());
          if (code == KeeperException.Code.RUNTIMEINCONSISTENCY) {
            continue; // rolled back because of another operation
          }
          if (i == 0) {
            throw fenced(operation, readLong(TERM, "leader term"));
          }
          throw new Conflict(
              store + ": cannot " + operation + ": " + code + " on " + describe(all.get(i)),
              i - 1,
              code);
        }
      }
      throw zkFailure(store, operation, e);
    } catch (Exception e) {
      throw zkFailure(store, operation, e);
    }
  }

  private FencedException fenced(String operation, Versioned<Long> now) {
    return new FencedException(
        store
            + ": fenced: cannot "
            + operation
            + " under leader "
            + term
            + ", the current leader term is "
            + now.value()
            + " (term node version "
            + now.version()
            + ")",
        term);
  }

  private String describe(CuratorOp op) {
    String path = op.getTypeAndPath().getForPath();
    return path.startsWith(base) ? path.substring(base.length()) : path;
  }

  private interface OpMaker {
    CuratorOp make() throws Exception;
  }

  private CuratorOp op(OpMaker maker) {
    try {
      return maker.make();
    } catch (Exception e) {
      throw zkFailure(store, "prepare a catalog write", e);
    }
  }

  static String snapshotPath(long id) {
    return SNAPSHOTS + "/" + String.format("%019d", id);
  }

  /** The bytes a node's frame covers besides its payload: its path below the base. */
  static byte[] key(String path) {
    return path.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] longPayload(long value) {
    return ByteBuffer.allocate(8).putLong(value).array();
  }

  static StoreException zkFailure(String store, String operation, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    if (e instanceof StoreException se) {
      return se;
    }
    return new StoreException(store + ": ZooKeeper: cannot " + operation + ": " + e, e);
  }
}
