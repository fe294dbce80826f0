package io.cutpoint.server.membership;

import io.cutpoint.cut.ChannelId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Workers and their declared channels. A channel {@code p -> q} is <em>closed</em> when {@code p}
 * declares {@code q} as outgoing and {@code q} declares {@code p} as incoming; it is
 * <em>pending</em> while only one end has declared it (the other end has not joined yet). A
 * snapshot needs a topology without pending channels. Immutable and pure.
 */
public record ClusterTopology(SortedMap<String, Declaration> workers) {

  public ClusterTopology {
    workers = Collections.unmodifiableSortedMap(new TreeMap<>(workers));
  }

  public static ClusterTopology empty() {
    return new ClusterTopology(new TreeMap<>());
  }

  public static ClusterTopology of(Iterable<Declaration> declarations) {
    SortedMap<String, Declaration> m = new TreeMap<>();
    declarations.forEach(d -> m.put(d.workerId(), d));
    return new ClusterTopology(m);
  }

  /** This topology with {@code decl} added or replacing the worker's previous declaration. */
  public ClusterTopology with(Declaration decl) {
    SortedMap<String, Declaration> m = new TreeMap<>(workers);
    m.put(decl.workerId(), decl);
    return new ClusterTopology(m);
  }

  /** This topology without worker {@code id}'s declaration. */
  public ClusterTopology without(String id) {
    if (!workers.containsKey(id)) {
      return this;
    }
    SortedMap<String, Declaration> m = new TreeMap<>(workers);
    m.remove(id);
    return new ClusterTopology(m);
  }

  public SortedSet<String> workerIds() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(workers.keySet()));
  }

  /** Channels declared by both ends. */
  public SortedSet<ChannelId> channels() {
    SortedSet<ChannelId> out = new TreeSet<>();
    for (Declaration d : workers.values()) {
      for (String to : d.outgoing()) {
        Declaration peer = workers.get(to);
        if (peer != null && peer.incoming().contains(d.workerId())) {
          out.add(ChannelId.of(d.workerId(), to));
        }
      }
    }
    return out;
  }

  /** Channels declared by one end whose other end has not declared it (yet). */
  public SortedSet<ChannelId> pendingChannels() {
    SortedSet<ChannelId> out = new TreeSet<>();
    for (Declaration d : workers.values()) {
      for (String to : d.outgoing()) {
        Declaration peer = workers.get(to);
        if (peer == null || !peer.incoming().contains(d.workerId())) {
          out.add(ChannelId.of(d.workerId(), to));
        }
      }
      for (String from : d.incoming()) {
        Declaration peer = workers.get(from);
        if (peer == null || !peer.outgoing().contains(d.workerId())) {
          out.add(ChannelId.of(from, d.workerId()));
        }
      }
    }
    return out;
  }

  /** True when every declared channel is declared by both ends. */
  public boolean closed() {
    return pendingChannels().isEmpty();
  }

  /**
   * Why {@code joining} contradicts the declarations {@code others} (its own, if among them, is
   * skipped): a worker that has declared its channels and does not list the joining worker where
   * the joining worker lists it, or the other way round, in the order of {@code others}. Empty when
   * it fits.
   */
  public static List<String> contradictions(Declaration joining, Iterable<Declaration> others) {
    List<String> out = new ArrayList<>();
    String me = joining.workerId();
    for (Declaration d : others) {
      String other = d.workerId();
      if (other.equals(me)) {
        continue;
      }
      boolean iSend = joining.outgoing().contains(other);
      boolean theyReceive = d.incoming().contains(me);
      if (iSend != theyReceive) {
        out.add(
            iSend
                ? me
                    + " declares a channel to "
                    + other
                    + " but "
                    + other
                    + " does not declare one from "
                    + me
                : other
                    + " declares a channel from "
                    + me
                    + " but "
                    + me
                    + " does not declare one to "
                    + other);
      }
      boolean iReceive = joining.incoming().contains(other);
      boolean theySend = d.outgoing().contains(me);
      if (iReceive != theySend) {
        out.add(
            iReceive
                ? me
                    + " declares a channel from "
                    + other
                    + " but "
                    + other
                    + " does not declare one to "
                    + me
                : other
                    + " declares a channel to "
                    + me
                    + " but "
                    + me
                    + " does not declare one from "
                    + other);
      }
    }
    return out;
  }
}
