package io.cutpoint.ops.ha;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.storage.StoreParts;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;

/**
 * Reads the catalog of a cluster straight from ZooKeeper, as the tests' witness of what was
 * committed and when (storage.md section 11 has the layout): each snapshot node with the
 * transaction ids that created it (createPending) and last changed it (the commit or the abort),
 * and the term node. Reads only.
 */
final class CatalogAudit {
  private final CuratorFramework zk;
  private final String base;

  /** A snapshot node of the catalog. */
  record Entry(long id, SnapshotStatus status, long createdZxid, long changedZxid) {
    boolean complete() {
      return status == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE;
    }
  }

  /** A leader term as the term node holds it, with the transaction that took it. */
  record Term(long number, long zxid) {}

  CatalogAudit(CuratorFramework zk, String base) {
    this.zk = zk;
    this.base = base;
  }

  /** Every snapshot of the catalog, by id. */
  Map<Long, Entry> entries() throws Exception {
    return entries(0);
  }

  /** The snapshots with ids above {@code afterId}, by id. */
  Map<Long, Entry> entries(long afterId) throws Exception {
    Map<Long, Entry> entries = new TreeMap<>();
    for (String child : zk.getChildren().forPath(base + "/catalog/snapshots")) {
      if (Long.parseLong(child) <= afterId) {
        continue;
      }
      String rel = "/catalog/snapshots/" + child;
      Stat stat = new Stat();
      byte[] raw;
      try {
        raw = zk.getData().storingStatIn(stat).forPath(base + rel);
      } catch (org.apache.zookeeper.KeeperException.NoNodeException deleted) {
        continue;
      }
      SnapshotManifest m = SnapshotManifest.parseFrom(unframe(rel, raw));
      entries.put(
          m.getSnapshotId(),
          new Entry(m.getSnapshotId(), m.getStatus(), stat.getCzxid(), stat.getMzxid()));
    }
    return entries;
  }

  /** The ids of the COMPLETE snapshots. */
  List<Long> complete() throws Exception {
    List<Long> ids = new ArrayList<>();
    for (Entry e : entries().values()) {
      if (e.complete()) {
        ids.add(e.id());
      }
    }
    return ids;
  }

  Term term() throws Exception {
    Stat stat = new Stat();
    byte[] raw = zk.getData().storingStatIn(stat).forPath(base + "/term");
    return new Term(ByteBuffer.wrap(unframe("/term", raw)).getLong(), stat.getMzxid());
  }

  /** The cluster epoch. */
  long epoch() throws Exception {
    return ByteBuffer.wrap(unframe("/catalog/epoch", zk.getData().forPath(base + "/catalog/epoch")))
        .getLong();
  }

  /** True while a rollback's intent is persisted (begun, not finished). */
  boolean rollbackPersisted() throws Exception {
    byte[] raw = zk.getData().forPath(base + "/catalog/rollback");
    return unframe("/catalog/rollback", raw).length > 0;
  }

  /**
   * The snapshots that a replaced leader committed: created before {@code taken} took its term and
   * flipped to COMPLETE after it. Only the old leader can have written them (a new leader aborts
   * the pending snapshots it inherits), and the catalog's term check must have refused it.
   */
  List<Entry> committedAfterReplaced(Term taken) throws Exception {
    List<Entry> bad = new ArrayList<>();
    for (Entry e : entries().values()) {
      if (e.complete() && e.createdZxid() < taken.zxid() && e.changedZxid() > taken.zxid()) {
        bad.add(e);
      }
    }
    return bad;
  }

  private static byte[] unframe(String rel, byte[] raw) {
    return StoreParts.unframe(rel.getBytes(StandardCharsets.UTF_8), raw, () -> rel);
  }
}
