package io.cutpoint.ha;

import io.cutpoint.storage.StoreException;
import io.cutpoint.storage.StoreParts;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Leader terms in ZooKeeper: the node {@code {base}/term} holds the current term number, and its
 * version is the fencing token that every catalog write checks. Taking a term increments the number
 * in one transaction conditioned on the version that was read, so two takers can never get the same
 * term.
 */
public final class Terms {
  /** Concurrent takers retry this often before giving up. */
  static final int ATTEMPTS = 20;

  private Terms() {}

  /**
   * Takes the next term unconditionally: whatever was opened under an older term is fenced from now
   * on. {@link LeaderElection} does this when it wins; an operator's tool may do it by hand.
   */
  public static LeaderTerm take(CuratorFramework zk, String base) {
    return take(zk, base, List.of());
  }

  /**
   * Takes the next term in a transaction that also runs {@code conditions} (e.g. a check that this
   * process's leader latch node still exists).
   *
   * @throws StoreException if a condition fails or ZooKeeper cannot be reached
   */
  static LeaderTerm take(CuratorFramework zk, String base, List<CuratorOp> conditions) {
    Catalog.ensure(zk, base);
    String path = base + Catalog.TERM;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        Stat stat = new Stat();
        byte[] data = zk.getData().storingStatIn(stat).forPath(path);
        byte[] payload = StoreParts.unframe(Catalog.key(Catalog.TERM), data, () -> "leader term");
        long next = ByteBuffer.wrap(payload).getLong() + 1;
        List<CuratorOp> ops = new ArrayList<>(conditions);
        ops.add(
            zk.transactionOp()
                .setData()
                .withVersion(stat.getVersion())
                .forPath(
                    path, StoreParts.frame(Catalog.key(Catalog.TERM), Catalog.longPayload(next))));
        List<CuratorTransactionResult> results = zk.transaction().forOperations(ops);
        Stat after = results.get(results.size() - 1).getResultStat();
        return new LeaderTerm(next, after.getVersion());
      } catch (KeeperException.BadVersionException raced) {
        // another taker was first: read again
      } catch (KeeperException e) {
        if (isBadVersionOfLast(e)) {
          continue;
        }
        throw Catalog.zkFailure("ZooKeeper " + base, "take a leader term", e);
      } catch (Exception e) {
        throw Catalog.zkFailure("ZooKeeper " + base, "take a leader term", e);
      }
    }
    throw new StoreException(
        "ZooKeeper "
            + base
            + ": cannot take a leader term: "
            + ATTEMPTS
            + " attempts raced with other takers");
  }

  /** The current term, as a store opened now would be fenced against. */
  public static LeaderTerm current(CuratorFramework zk, String base) {
    try {
      Stat stat = new Stat();
      byte[] data = zk.getData().storingStatIn(stat).forPath(base + Catalog.TERM);
      byte[] payload = StoreParts.unframe(Catalog.key(Catalog.TERM), data, () -> "leader term");
      return new LeaderTerm(ByteBuffer.wrap(payload).getLong(), stat.getVersion());
    } catch (Exception e) {
      throw Catalog.zkFailure("ZooKeeper " + base, "read the leader term", e);
    }
  }

  private static boolean isBadVersionOfLast(KeeperException e) {
    var results = e.getResults();
    if (results == null || results.isEmpty()) {
      return false;
    }
    var last = results.get(results.size() - 1);
    return last instanceof org.apache.zookeeper.OpResult.ErrorResult error
        && error.getErr() == KeeperException.Code.BADVERSION.intValue();
  }
}
