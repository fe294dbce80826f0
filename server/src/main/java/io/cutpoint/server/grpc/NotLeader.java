package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a standby coordinator serves in place of the Coordinator and Admin services: every call of
 * either ends at once with UNAVAILABLE "not the leader; the leader is HOST:PORT", so that a
 * worker's join and an operator's command, read or write, go to the leader. A worker's call is
 * refused through {@link HeldRefusals}, which holds it while no useful leader is known. Admin reads
 * are not answered from the shared catalog: one coordinator answers everything, and a standby never
 * shows a catalog that the leader is changing under it.
 */
public final class NotLeader {

  /** The start of every refusal's description; a client finds the leader's address after it. */
  public static final String PREFIX = "not the leader; the leader is ";

  /** The description when no leader is known. */
  public static final String NO_LEADER = "not the leader; no leader is elected yet";

  private NotLeader() {}

  /** The refusal's description for {@code leader}, the leader's {@code HOST:PORT} if known. */
  public static String describe(Optional<String> leader) {
    return leader.map(l -> PREFIX + l).orElse(NO_LEADER);
  }

  /**
   * The leader's address in a refusal's description, or empty when it names none.
   *
   * @param description a status description, possibly null
   */
  public static Optional<String> leaderIn(String description) {
    if (description == null || !description.startsWith(PREFIX)) {
      return Optional.empty();
    }
    String address = description.substring(PREFIX.length()).trim();
    return address.isEmpty() ? Optional.empty() : Optional.of(address);
  }

  /**
   * The Coordinator and Admin services of a standby; {@code leader} is asked at every Admin call,
   * {@code workers} refuses (or holds) every Coordinator call.
   */
  static List<ServerServiceDefinition> services(
      Supplier<Optional<String>> leader, HeldRefusals workers) {
    return List.of(
        refusing(CoordinatorGrpc.getServiceDescriptor(), workers::refuse),
        refusing(
            AdminGrpc.getServiceDescriptor(),
            new Refusal() {
              @Override
              public <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Metadata headers) {
                call.close(
                    Status.UNAVAILABLE.withDescription(describe(leader.get())), new Metadata());
                return new ServerCall.Listener<Q>() {};
              }
            }));
  }

  /** How one service's calls are refused. */
  private interface Refusal {
    <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Metadata headers);
  }

  private static ServerServiceDefinition refusing(ServiceDescriptor service, Refusal refusal) {
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(service);
    for (MethodDescriptor<?, ?> m : service.getMethods()) {
      add(b, m, refusal);
    }
    return b.build();
  }

  private static <Q, R> void add(
      ServerServiceDefinition.Builder b, MethodDescriptor<Q, R> method, Refusal refusal) {
    b.addMethod(method, refusal::refuse);
  }
}
