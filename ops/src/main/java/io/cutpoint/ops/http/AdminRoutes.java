package io.cutpoint.ops.http;

import io.cutpoint.api.v1.AdminGrpc;
import io.grpc.MethodDescriptor;
import java.util.List;
import java.util.Map;

/**
 * Where each Admin call lives under {@code /api/v1}. This table is only routing: the request is
 * built from the call's protobuf descriptor (path and query parameters and a JSON body fill the
 * request's fields by name) and the answer is the call's response in the protobuf JSON mapping, so
 * no call has code of its own.
 */
public final class AdminRoutes {

  /** HTTP methods used. */
  public enum Verb {
    GET,
    POST,
    DELETE
  }

  /**
   * One route.
   *
   * @param verb the HTTP method
   * @param path the path, with {@code {name}} parameters
   * @param rpc the Admin method's name
   * @param pathFields request field path (dotted) of each path parameter whose name differs
   * @param fixed fields the route sets itself (the pin and unpin routes set {@code pinned})
   */
  public record Route(
      Verb verb,
      String path,
      String rpc,
      Map<String, String> pathFields,
      Map<String, String> fixed) {

    /** The gRPC method this route calls. */
    public MethodDescriptor<?, ?> method() {
      return AdminRoutes.method(rpc);
    }

    /** The request field a path parameter fills. */
    public String fieldOf(String pathParameter) {
      return pathFields.getOrDefault(pathParameter, pathParameter);
    }
  }

  /** Where every route of the API lives. */
  public static final String PREFIX = "/api";

  /** The path of the event stream (WatchEvents as Server-Sent Events). */
  public static final String EVENTS = "/api/v1/events";

  /** Every unary Admin call. */
  public static final List<Route> UNARY =
      List.of(
          route(Verb.GET, "/api/v1/snapshots", "ListSnapshots"),
          route(Verb.POST, "/api/v1/snapshots", "TriggerSnapshot"),
          route(Verb.GET, "/api/v1/snapshots/{snapshot_id}", "GetSnapshot"),
          route(Verb.DELETE, "/api/v1/snapshots/{snapshot_id}", "DeleteSnapshot"),
          new Route(
              Verb.POST,
              "/api/v1/snapshots/{snapshot_id}/pin",
              "PinSnapshot",
              Map.of(),
              Map.of("pinned", "true")),
          new Route(
              Verb.POST,
              "/api/v1/snapshots/{snapshot_id}/unpin",
              "PinSnapshot",
              Map.of(),
              Map.of("pinned", "false")),
          new Route(
              Verb.GET,
              "/api/v1/snapshots/{snapshot_id}/channels/{from}/{to}",
              "GetChannelState",
              Map.of("from", "channel.from", "to", "channel.to"),
              Map.of()),
          route(Verb.GET, "/api/v1/snapshots/{snapshot_id}/analysis", "Analyze"),
          route(Verb.POST, "/api/v1/snapshots/{snapshot_id}/rollback", "Rollback"),
          route(Verb.POST, "/api/v1/snapshots/{snapshot_id}/abort", "AbortSnapshot"),
          route(Verb.POST, "/api/v1/rollback/cancel", "CancelRollback"),
          route(Verb.GET, "/api/v1/cluster", "GetCluster"),
          route(Verb.DELETE, "/api/v1/workers/{worker_id}", "RemoveWorker"),
          new Route(
              Verb.POST,
              "/api/v1/schedule/pause",
              "SetSchedule",
              Map.of(),
              Map.of("paused", "true")),
          new Route(
              Verb.POST,
              "/api/v1/schedule/resume",
              "SetSchedule",
              Map.of(),
              Map.of("paused", "false")));

  /** The server-streaming call served at {@link #EVENTS}. */
  public static final String EVENTS_RPC = "WatchEvents";

  private AdminRoutes() {}

  private static Route route(Verb verb, String path, String rpc) {
    return new Route(verb, path, rpc, Map.of(), Map.of());
  }

  /** The Admin method named {@code rpc}. */
  public static MethodDescriptor<?, ?> method(String rpc) {
    for (MethodDescriptor<?, ?> m : AdminGrpc.getServiceDescriptor().getMethods()) {
      if (rpc.equals(m.getBareMethodName())) {
        return m;
      }
    }
    throw new IllegalArgumentException("the Admin service has no method " + rpc);
  }
}
