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
 * worker's join and an operator's command, read or write, go to the leader. Admin reads are not
 * answered from the shared catalog: one coordinator answers everything, and a standby never shows a
 * catalog that the leader is changing under it.
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

  /** The Coordinator and Admin services of a standby; {@code leader} is asked at every call. */
  public static List<ServerServiceDefinition> services(Supplier<Optional<String>> leader) {
    return List.of(
        refusing(CoordinatorGrpc.getServiceDescriptor(), leader),
        refusing(AdminGrpc.getServiceDescriptor(), leader));
  }

  private static ServerServiceDefinition refusing(
      ServiceDescriptor service, Supplier<Optional<String>> leader) {
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(service);
    for (MethodDescriptor<?, ?> m : service.getMethods()) {
      add(b, m, leader);
    }
    return b.build();
  }

  private static <Q, R> void add(
      ServerServiceDefinition.Builder b,
      MethodDescriptor<Q, R> method,
      Supplier<Optional<String>> leader) {
    b.addMethod(
        method,
        (ServerCall<Q, R> call, Metadata headers) -> {
          call.close(Status.UNAVAILABLE.withDescription(describe(leader.get())), new Metadata());
          return new ServerCall.Listener<Q>() {};
        });
  }
}
