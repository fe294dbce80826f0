package io.cutpoint.storage;

import io.cutpoint.ha.LeaderTerm;
import io.cutpoint.ha.S3SnapshotStore;
import io.cutpoint.ha.Terms;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;

/**
 * A ZooKeeper server ({@code curator-test}'s {@link TestingServer}, ephemeral port, temporary
 * directory) and an S3 server ({@link S3Server}) in the test JVM, a Curator client, and the stores
 * opened on them; {@link #close()} frees all of it. Each {@link #fresh()} location has its own key
 * prefix and catalog path, so tests sharing a testbed do not see each other.
 */
final class HaTestbed implements AutoCloseable {
  static final String BUCKET = "cutpoint-snapshots";
  static final S3SnapshotStore.Options OPTIONS = S3SnapshotStore.Options.DEFAULT;
  private static final AtomicInteger NEXT = new AtomicInteger();

  final TestingServer zkServer;
  final CuratorFramework zk;
  final S3Server s3;
  private final List<S3SnapshotStore> stores = new ArrayList<>();

  HaTestbed() throws Exception {
    zkServer = ZooKeeperForTests.server();
    zk =
        CuratorFrameworkFactory.newClient(
            zkServer.getConnectString(), new ExponentialBackoffRetry(100, 3));
    zk.start();
    if (!zk.blockUntilConnected(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("ZooKeeper test server did not answer");
    }
    s3 = new S3Server();
    s3.createBucket(BUCKET);
  }

  /** A new, empty store location. */
  S3SnapshotStore.Location fresh() {
    int n = NEXT.incrementAndGet();
    return new S3SnapshotStore.Location(BUCKET, "cluster-" + n, "/cutpoint/cluster-" + n);
  }

  LeaderTerm take(S3SnapshotStore.Location where) {
    return Terms.take(zk, where.catalogPath());
  }

  /** Takes a new term and opens the store under it. */
  S3SnapshotStore open(S3SnapshotStore.Location where) {
    return open(where, take(where));
  }

  S3SnapshotStore open(S3SnapshotStore.Location where, LeaderTerm term) {
    return open(where, term, OPTIONS);
  }

  S3SnapshotStore open(
      S3SnapshotStore.Location where, LeaderTerm term, S3SnapshotStore.Options options) {
    S3SnapshotStore store = S3SnapshotStore.open(s3.client(), zk, where, term, options);
    stores.add(store);
    return store;
  }

  /**
   * Takes a new term and opens the store under it as a new leader does, its sweep left for later.
   */
  S3SnapshotStore openDeferringSweep(S3SnapshotStore.Location where) {
    S3SnapshotStore store =
        S3SnapshotStore.openDeferringSweep(s3.client(), zk, where, take(where), OPTIONS);
    stores.add(store);
    return store;
  }

  /** Writes an object as a damaged disk, a stray writer or an operator would: no frame added. */
  void putRaw(String key, byte[] bytes) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(bytes);
    String s3Crc =
        java.util.Base64.getEncoder()
            .encodeToString(java.nio.ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    s3.client()
        .putObject(
            b -> b.bucket(BUCKET).key(key).checksumCRC32C(s3Crc),
            software.amazon.awssdk.core.sync.RequestBody.fromBytes(bytes));
  }

  byte[] getRaw(String key) {
    return s3.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
  }

  void deleteRaw(String key) {
    s3.client().deleteObject(b -> b.bucket(BUCKET).key(key));
  }

  /** The key of an object of a snapshot, below the snapshot's directory. */
  static String key(S3SnapshotStore.Location where, long id, String rest) {
    return where.prefix() + "/snapshots/" + String.format("%019d", id) + "/" + rest;
  }

  /** Every object key under a location, in key order. */
  List<String> objects(S3SnapshotStore.Location where) {
    List<String> keys = new ArrayList<>();
    s3.client()
        .listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(where.prefix() + "/"))
        .contents()
        .forEach(o -> keys.add(o.key()));
    return keys;
  }

  /** The object keys of one snapshot. */
  List<String> objects(S3SnapshotStore.Location where, long id) {
    String dir = where.prefix() + "/snapshots/" + String.format("%019d", id) + "/";
    return objects(where).stream().filter(k -> k.startsWith(dir)).toList();
  }

  @Override
  public void close() throws java.io.IOException {
    stores.forEach(S3SnapshotStore::close);
    try {
      zk.close();
      zkServer.close();
    } finally {
      s3.close();
    }
  }
}
