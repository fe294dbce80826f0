package io.cutpoint.server.membership;

import io.cutpoint.api.v1.WorkerDecl;
import java.util.Collection;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What a worker declared when it joined: its id, the address of its channel server, and the peers
 * it sends to and receives from.
 */
public record Declaration(
    String workerId,
    String channelAddress,
    SortedSet<String> outgoing,
    SortedSet<String> incoming) {

  public Declaration {
    Objects.requireNonNull(workerId, "workerId");
    Objects.requireNonNull(channelAddress, "channelAddress");
    outgoing = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(outgoing));
    incoming = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(incoming));
  }

  public static Declaration of(
      String workerId, String address, Collection<String> outgoing, Collection<String> incoming) {
    return new Declaration(workerId, address, new TreeSet<>(outgoing), new TreeSet<>(incoming));
  }

  public static Declaration fromProto(WorkerDecl decl) {
    return of(
        decl.getWorkerId(),
        decl.getChannelAddress(),
        decl.getOutgoingList(),
        decl.getIncomingList());
  }

  public WorkerDecl toProto() {
    return WorkerDecl.newBuilder()
        .setWorkerId(workerId)
        .setChannelAddress(channelAddress)
        .addAllOutgoing(outgoing)
        .addAllIncoming(incoming)
        .build();
  }

  /** Same channels as {@code other} (addresses may differ). */
  public boolean sameChannels(Declaration other) {
    return outgoing.equals(other.outgoing) && incoming.equals(other.incoming);
  }

  /** Every peer this worker has a channel with, in either direction. */
  public SortedSet<String> peers() {
    SortedSet<String> all = new TreeSet<>(outgoing);
    all.addAll(incoming);
    return all;
  }
}
