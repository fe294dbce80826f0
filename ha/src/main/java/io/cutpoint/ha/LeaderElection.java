package io.cutpoint.ha;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;

/**
 * Elects one leader among the coordinators that share a ZooKeeper path, with Curator's {@link
 * LeaderLatch} under {@code {base}/leader}. On winning, it takes the next {@link LeaderTerm} (one
 * transaction that also checks that this participant's latch node still exists) and hands it to the
 * {@link Listener}; the leader opens its {@link S3SnapshotStore} under that term. On losing
 * leadership (connection suspended, session expired, closed) the listener hears it at once: it must
 * stop acting as the leader, and its store is fenced anyway as soon as another participant takes a
 * newer term.
 *
 * <p>The listener is called on this election's own thread ("cutpoint-election"), one call at a time
 * and in order, never on Curator's threads: a coordinator's event loop posts the calls to itself.
 */
public final class LeaderElection implements AutoCloseable {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(LeaderElection.class);

  /** What the election tells the coordinator. */
  public interface Listener {
    /** This participant leads from now on, under {@code term}. */
    void elected(LeaderTerm term);

    /** This participant no longer leads under {@code term}; {@code why} says what happened. */
    void revoked(LeaderTerm term, String why);
  }

  private final CuratorFramework zk;
  private final String base;
  private final String participantId;
  private final Listener listener;
  private final ExecutorService events;
  // Written only on the events thread; read by leader().
  private volatile LeaderLatch latch;
  // Only touched on the events thread.
  private LeaderTerm current;
  private volatile LeaderTerm leading;

  private LeaderElection(
      CuratorFramework zk, String base, String participantId, Listener listener) {
    this.zk = zk;
    this.base = base;
    this.participantId = participantId;
    this.listener = listener;
    this.events =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "cutpoint-election-" + participantId);
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Joins the election under {@code base} (a ZooKeeper path such as {@code /cutpoint}, the same as
   * the store's catalog path).
   *
   * @throws io.cutpoint.storage.StoreException if the catalog's nodes cannot be created (no
   *     ZooKeeper)
   */
  public static LeaderElection start(
      CuratorFramework zk, String base, String participantId, Listener listener) {
    Catalog.ensure(zk, base); // here, so that an unreachable ZooKeeper fails the caller
    LeaderElection election = new LeaderElection(zk, base, participantId, listener);
    election.onEvents(election::join);
    return election;
  }

  /**
   * The participant ids of every coordinator in the election under {@code base} now, leader and
   * standbys (each keeps a latch node while its ZooKeeper session lives); empty when none runs. For
   * offline tools that must not write while a coordinator runs.
   *
   * @throws io.cutpoint.storage.StoreException if ZooKeeper cannot be read
   */
  public static List<String> participants(CuratorFramework zk, String base) {
    String path = base + Catalog.LEADER;
    try {
      if (zk.checkExists().forPath(path) == null) {
        return List.of();
      }
      List<String> ids = new java.util.ArrayList<>();
      for (String child : zk.getChildren().forPath(path)) {
        try {
          ids.add(
              new String(
                  zk.getData().forPath(path + "/" + child),
                  java.nio.charset.StandardCharsets.UTF_8));
        } catch (org.apache.zookeeper.KeeperException.NoNodeException gone) {
          // that participant left meanwhile
        }
      }
      return ids;
    } catch (Exception e) {
      throw Catalog.zkFailure("ZooKeeper " + base, "list the election's participants", e);
    }
  }

  /** The term this participant leads under, if it leads. */
  public Optional<LeaderTerm> term() {
    return Optional.ofNullable(leading);
  }

  public String participantId() {
    return participantId;
  }

  /**
   * The participant id of the current leader, as its latch node in ZooKeeper says (a coordinator
   * joins with its advertised address as its id); empty when none is known. Any thread; reads
   * ZooKeeper.
   */
  public Optional<String> leader() {
    LeaderLatch l = latch;
    if (l == null) {
      return Optional.empty();
    }
    try {
      var p = l.getLeader();
      return p.isLeader() && !p.getId().isEmpty() ? Optional.of(p.getId()) : Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  /**
   * Gives up leadership of {@code term} (when the store says it was fenced, or the leader could not
   * start under it): the listener hears {@code revoked}, and the participant joins the election
   * again, last in line. Any thread; does nothing unless this participant still leads under {@code
   * term}: a late call about a term already given up must not end the one that followed it.
   */
  public void stepDown(LeaderTerm term, String why) {
    onEvents(
        () -> {
          if (current != null && current.equals(term)) {
            revoke(why);
            rejoin();
          }
        });
  }

  private void join() {
    LeaderLatch l =
        new LeaderLatch(
            zk, base + Catalog.LEADER, participantId, LeaderLatch.CloseMode.NOTIFY_LEADER);
    l.addListener(
        new LeaderLatchListener() {
          @Override
          public void isLeader() {
            onElected(l);
          }

          @Override
          public void notLeader() {
            revoke("leadership lost (connection suspended, session expired or latch closed)");
          }
        },
        events);
    latch = l;
    try {
      l.start();
    } catch (Exception e) {
      throw Catalog.zkFailure("ZooKeeper " + base, "join the leader election", e);
    }
  }

  private void onElected(LeaderLatch l) {
    if (l != latch || !l.hasLeadership() || current != null) {
      return;
    }
    LeaderTerm term;
    try {
      String ourPath = l.getOurPath();
      term = Terms.take(zk, base, List.of(zk.transactionOp().check().forPath(ourPath)));
    } catch (Exception e) {
      log.warn(
          "{} won the election but could not take a leader term; joining again: {}",
          participantId,
          e.toString());
      rejoin();
      return;
    }
    current = term;
    leading = term;
    log.info("{} leads under {}", participantId, term);
    listener.elected(term);
  }

  private void revoke(String why) {
    LeaderTerm was = current;
    if (was == null) {
      return;
    }
    current = null;
    leading = null;
    log.warn("{} no longer leads under {}: {}", participantId, was, why);
    listener.revoked(was, why);
  }

  private void rejoin() {
    LeaderLatch old = latch;
    latch = null;
    try {
      old.close(LeaderLatch.CloseMode.SILENT);
    } catch (IOException | RuntimeException e) {
      log.warn("{}: closing the old latch failed: {}", participantId, e.toString());
    }
    join();
  }

  private void onEvents(Runnable r) {
    events.execute(
        () -> {
          try {
            r.run();
          } catch (RuntimeException e) {
            log.error("{}: election event failed", participantId, e);
          }
        });
  }

  /** Leaves the election; a leader's listener hears {@code revoked} before this returns. */
  @Override
  public void close() {
    onEvents(
        () -> {
          revoke("the election was closed");
          LeaderLatch l = latch;
          latch = null;
          if (l != null) {
            try {
              l.close(LeaderLatch.CloseMode.SILENT);
            } catch (IOException e) {
              log.warn("{}: closing the latch failed: {}", participantId, e.toString());
            }
          }
        });
    events.shutdown();
    try {
      if (!events.awaitTermination(30, TimeUnit.SECONDS)) {
        log.warn(
            "{}: the election's thread did not end within 30 s (a leader still starting?);"
                + " interrupting it",
            participantId);
        events.shutdownNow();
        events.awaitTermination(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      events.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
