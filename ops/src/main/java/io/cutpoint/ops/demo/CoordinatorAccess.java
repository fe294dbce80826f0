package io.cutpoint.ops.demo;

import io.cutpoint.client.session.WorkerToken;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;

/**
 * How the demo reaches a coordinator it does not run ({@code --connect}): the transport (plaintext
 * or TLS, with a client certificate under mutual TLS), the admin token of its Admin calls, and the
 * worker token its bank workers join with.
 *
 * @param adminToken null = none
 * @param workerToken null = none
 */
public record CoordinatorAccess(
    ChannelCredentials transport, String adminToken, WorkerToken workerToken) {

  /** Plaintext, without tokens (the embedded coordinator, or a loopback one without security). */
  public static CoordinatorAccess plaintext() {
    return new CoordinatorAccess(InsecureChannelCredentials.create(), null, null);
  }

  /** The credentials of a bank worker's session, uploads and downloads. */
  ChannelCredentials workers() {
    return workerToken == null ? transport : workerToken.with(transport);
  }
}
