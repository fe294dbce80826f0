package io.cutpoint.ops.ha;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.LeaderChannel;
import io.cutpoint.client.session.SessionOptions;
import io.cutpoint.ops.demo.BankAccount;
import io.cutpoint.ops.demo.CaptureLog;
import io.cutpoint.ops.demo.SnapshotChecker;
import io.grpc.InsecureChannelCredentials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The demo's bank, as workers in the test JVM that follow the leader of a highly available cluster:
 * each a real {@link Worker} with a {@link BankAccount}, its session over its own {@link
 * LeaderChannel}. A timer moves money between the accounts; every committed snapshot must hold the
 * bank's total ({@link SnapshotChecker}, with the states the accounts captured). {@link #close()}
 * stops all of it.
 */
final class BankWorkers implements AutoCloseable {
  static final long BALANCE = 1_000_000;

  final List<String> ids;
  final CaptureLog captures = new CaptureLog();
  final List<BankAccount> accounts = new ArrayList<>();
  final List<Worker> workers = new ArrayList<>();
  final List<CoordinatorSession> sessions = new ArrayList<>();
  private final List<LeaderChannel> channels = new ArrayList<>();
  private final LeaderChannel adminChannel;
  private final ScheduledExecutorService traffic =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "bank-traffic");
            t.setDaemon(true);
            return t;
          });

  BankWorkers(List<String> coordinators, List<String> ids, long seed) {
    this.ids = List.copyOf(ids);
    for (String id : ids) {
      List<String> peers = new ArrayList<>(ids);
      peers.remove(id);
      BankAccount account = new BankAccount(id, peers, BALANCE, 100, seed++);
      account.onCapture((snapshotId, state) -> captures.record(id, snapshotId, state));
      Worker w =
          Worker.builder(id)
              .listenOn("127.0.0.1", 0)
              .outgoing(peers)
              .incoming(peers)
              .stateHandler(account)
              .messageHandler(account)
              .build()
              .start();
      LeaderChannel channel =
          LeaderChannel.forAddresses(coordinators, InsecureChannelCredentials.create());
      accounts.add(account);
      workers.add(w);
      channels.add(channel);
      sessions.add(
          new CoordinatorSession(
                  channel,
                  w,
                  SessionOptions.defaults()
                      .withReconnect(Duration.ofMillis(50), Duration.ofMillis(500))
                      .withCloseTimeout(Duration.ofSeconds(2)))
              .start());
    }
    adminChannel = LeaderChannel.forAddresses(coordinators, InsecureChannelCredentials.create());
    traffic.scheduleWithFixedDelay(this::transfers, 5, 5, TimeUnit.MILLISECONDS);
  }

  long total() {
    return BALANCE * ids.size();
  }

  /** An Admin stub that follows the leader (a call to a standby fails, the next one goes on). */
  AdminGrpc.AdminBlockingStub admin() {
    return AdminGrpc.newBlockingStub(adminChannel).withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  ClusterView cluster() {
    return admin().getCluster(GetClusterRequest.getDefaultInstance());
  }

  SnapshotChecker checker() {
    return new SnapshotChecker(
        this::admin, SnapshotChecker.fromCaptures(captures), Set.copyOf(ids), total());
  }

  /** Refused commands of an older leader term, over all sessions. */
  long refusedStaleTermMessages() {
    return sessions.stream().mapToLong(CoordinatorSession::refusedStaleTermMessages).sum();
  }

  private void transfers() {
    for (int i = 0; i < workers.size(); i++) {
      Worker w = workers.get(i);
      BankAccount a = accounts.get(i);
      try {
        w.execute(
            () -> {
              try {
                a.transfer(w::send);
              } catch (RuntimeException e) {
                // halted by a rollback, or not joined yet: the money stays in the account
              }
            });
      } catch (RuntimeException closed) {
        // the worker is closing
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    traffic.shutdownNow();
    traffic.awaitTermination(5, TimeUnit.SECONDS);
    for (CoordinatorSession s : sessions) {
      s.close();
    }
    List<LeaderChannel> all = new ArrayList<>(channels);
    all.add(adminChannel);
    for (LeaderChannel c : all) {
      c.shutdownNow();
    }
    for (LeaderChannel c : all) {
      c.awaitTermination(5, TimeUnit.SECONDS);
    }
    for (Worker w : workers) {
      w.close();
    }
  }
}
