package io.cutpoint.server.e2e;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionOptions;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.server.testing.Teller;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.ManagedChannel;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Real workers (SDK {@link Worker} plus {@link CoordinatorSession}) in this JVM, fully connected,
 * each running a {@link Teller}, joined to a coordinator over {@code channel}. Sessions reconnect
 * by themselves when the coordinator goes away and comes back. Closes everything but the channel's
 * owner's channel.
 */
final class LiveWorkers implements AutoCloseable {

  static final long BALANCE = 1_000;

  /** Transfers of 1 to 20 per message. */
  private static final int MAX_AMOUNT = 20;

  record Member(Worker worker, Teller teller, CoordinatorSession session) {}

  final SortedMap<String, Member> members = new TreeMap<>();
  private final ScheduledExecutorService driver =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "e2e-traffic");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean traffic;

  LiveWorkers(ManagedChannel channel, String... ids) {
    long seed = 1;
    for (String id : ids) {
      List<String> others = new ArrayList<>();
      for (String o : ids) {
        if (!o.equals(id)) {
          others.add(o);
        }
      }
      Teller teller = new Teller(BALANCE, others, seed++, MAX_AMOUNT);
      Worker w =
          Worker.builder(id)
              .outgoing(others)
              .incoming(others)
              .stateHandler(teller)
              .messageHandler(teller)
              .build();
      teller.attach(w);
      w.start();
      CoordinatorSession s =
          new CoordinatorSession(
              channel,
              w,
              SessionOptions.defaults()
                  .withReconnect(Duration.ofMillis(50), Duration.ofMillis(300))
                  .withCloseTimeout(Duration.ofSeconds(2)));
      members.put(id, new Member(w, teller, s));
      s.start();
    }
    members.values().forEach(m -> m.session().joined().orTimeout(20, TimeUnit.SECONDS).join());
    driver.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.MILLISECONDS);
  }

  void traffic(boolean on) {
    traffic = on;
  }

  private void tick() {
    if (!traffic) {
      return;
    }
    for (Member m : members.values()) {
      try {
        m.worker().execute(m.teller()::transfer);
      } catch (RuntimeException e) {
        // closing
      }
    }
  }

  long total() {
    return BALANCE * members.size();
  }

  /** Balances in the stored states of a snapshot plus the amounts recorded in transit. */
  static long moneyIn(SnapshotStore store, SnapshotManifest m) {
    long total = 0;
    for (WorkerDecl w : m.getTopology().getWorkersList()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      store.readState(m.getSnapshotId(), w.getWorkerId(), out::writeBytes);
      total += Teller.balanceOf(out.toByteArray());
      for (String from : w.getIncomingList()) {
        for (InTransitMessage r :
            store.readChannel(m.getSnapshotId(), ChannelId.of(from, w.getWorkerId()))) {
          total += Teller.amountOf(r.payload());
        }
      }
    }
    return total;
  }

  /** Closes one worker's session and worker (it crashed). */
  void crash(String id) {
    Member m = members.remove(id);
    m.session().close();
    m.worker().close();
  }

  @Override
  public void close() {
    traffic = false;
    driver.shutdownNow();
    for (Member m : members.values()) {
      m.session().close();
      m.worker().close();
    }
    members.clear();
    try {
      driver.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
