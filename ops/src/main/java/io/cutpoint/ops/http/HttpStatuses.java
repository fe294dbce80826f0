package io.cutpoint.ops.http;

import io.grpc.Status;

/**
 * The HTTP status of a gRPC status code: the mapping of Google's API design guide ({@code
 * google.rpc.Code}), so that the HTTP API refuses what the gRPC port refuses.
 */
public final class HttpStatuses {

  private HttpStatuses() {}

  /** The HTTP status for {@code code}. */
  public static int of(Status.Code code) {
    return switch (code) {
      case OK -> 200;
      case INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE -> 400;
      case UNAUTHENTICATED -> 401;
      case PERMISSION_DENIED -> 403;
      case NOT_FOUND -> 404;
      case ALREADY_EXISTS, ABORTED -> 409;
      case RESOURCE_EXHAUSTED -> 429;
      case CANCELLED -> 499;
      case UNIMPLEMENTED -> 501;
      case UNAVAILABLE -> 503;
      case DEADLINE_EXCEEDED -> 504;
      case UNKNOWN, INTERNAL, DATA_LOSS -> 500;
    };
  }
}
