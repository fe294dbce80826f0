package io.cutpoint.client;

import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Several bank workers in one JVM over loopback gRPC, for tests: starts them, tells each the
 * others' addresses, collects local snapshots per snapshot id, and closes everything.
 */
final class BankCluster implements AutoCloseable {

  final SortedMap<String, Worker> workers = new TreeMap<>();
  final SortedMap<String, BankAccount> accounts = new TreeMap<>();
  final Set<ChannelId> channels = new TreeSet<>();
  final Map<Long, Map<String, CompletedLocalSnapshot>> completed = new ConcurrentHashMap<>();
  final Map<Long, String> failed = new ConcurrentHashMap<>();
  final long initialTotal;

  /**
   * @param outgoing peers each worker sends to (the key set is the set of workers)
   * @param tweak adjusts each worker's builder (options, limits)
   */
  BankCluster(
      Map<String, List<String>> outgoing,
      long balance,
      long budget,
      UnaryOperator<Worker.Builder> tweak) {
    Map<String, List<String>> incoming = new HashMap<>();
    outgoing.forEach(
        (from, tos) ->
            tos.forEach(
                to -> {
                  incoming.computeIfAbsent(to, k -> new ArrayList<>()).add(from);
                  channels.add(ChannelId.of(from, to));
                }));
    long seed = 1;
    try {
      for (String id : new TreeSet<>(outgoing.keySet())) {
        BankAccount account = new BankAccount(balance, outgoing.get(id), seed++, budget);
        Worker w =
            tweak
                .apply(
                    Worker.builder(id)
                        .outgoing(outgoing.get(id))
                        .incoming(incoming.getOrDefault(id, List.of()))
                        .stateHandler(account)
                        .messageHandler(account))
                .build();
        account.attach(w);
        workers.put(id, w);
        accounts.put(id, account);
        w.setSnapshotListener(
            new WorkerControl.LocalSnapshotListener() {
              @Override
              public void completed(CompletedLocalSnapshot s) {
                completed
                    .computeIfAbsent(s.cut().snapshotId(), k -> new ConcurrentHashMap<>())
                    .put(id, s);
              }

              @Override
              public void failed(long snapshotId, String reason) {
                failed.put(snapshotId, id + ": " + reason);
              }
            });
        w.start();
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    initialTotal = balance * outgoing.size();
  }

  /** Gives every worker the real addresses of all others. */
  BankCluster connectDirectly() {
    Map<String, String> addresses = new HashMap<>();
    workers.forEach((id, w) -> addresses.put(id, w.channelAddress()));
    workers.values().forEach(w -> w.updatePeers(addresses));
    return this;
  }

  void kickAll(int chains) {
    accounts.forEach((id, a) -> workers.get(id).execute(() -> a.kick(chains)));
  }

  void stopAll() {
    accounts.forEach((id, a) -> workers.get(id).execute(a::stop));
  }

  boolean complete(long snapshotId) {
    Map<String, CompletedLocalSnapshot> pieces = completed.get(snapshotId);
    return pieces != null && pieces.size() == workers.size();
  }

  Cut cut(long snapshotId) {
    List<LocalSnapshot> pieces = new ArrayList<>();
    completed.getOrDefault(snapshotId, Map.of()).values().forEach(s -> pieces.add(s.cut()));
    return Cut.of(snapshotId, workers.keySet(), channels, pieces);
  }

  /** Balances in the captured states plus amounts recorded in transit. */
  long moneyIn(long snapshotId) {
    long total = 0;
    for (CompletedLocalSnapshot s : completed.get(snapshotId).values()) {
      total += BankAccount.balanceOf(s.state().state());
      for (List<InTransitMessage> msgs : s.cut().recordings().values()) {
        for (InTransitMessage m : msgs) {
          total += BankAccount.amountOf(m.payload());
        }
      }
    }
    return total;
  }

  long liveBalances() {
    return accounts.values().stream().mapToLong(BankAccount::balance).sum();
  }

  boolean quiet() {
    return workers.values().stream().allMatch(Worker::allAcknowledged);
  }

  List<String> violations() {
    List<String> all = new ArrayList<>();
    accounts.forEach((id, a) -> a.violations.forEach(v -> all.add(id + " " + v)));
    return all;
  }

  static Map<String, List<String>> complete(String... ids) {
    Map<String, List<String>> out = new TreeMap<>();
    for (String a : ids) {
      List<String> peers = new ArrayList<>();
      for (String b : ids) {
        if (!a.equals(b)) {
          peers.add(b);
        }
      }
      out.put(a, peers);
    }
    return out;
  }

  @Override
  public void close() {
    workers.values().forEach(Worker::close);
  }
}
