package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.util.Durations;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * How long an admin call with {@code --wait} may take: the parsed {@code --wait-timeout} (zero =
 * the coordinator's own deadline for the operation) and the stub whose deadline covers it.
 */
record Waiting(boolean waiting, Duration timeout) {

  /** Parses {@code --wait-timeout}; a bad value is a usage error of {@code command}. */
  static Waiting of(CommandLine command, boolean wait, String waitTimeout) {
    if (waitTimeout == null) {
      return new Waiting(wait, Duration.ZERO);
    }
    if (!wait) {
      throw new ParameterException(command, "--wait-timeout needs --wait");
    }
    try {
      return new Waiting(wait, Durations.parse(waitTimeout));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(command, "bad --wait-timeout: " + e.getMessage());
    }
  }

  /** The timeout as the request's {@code wait_timeout_ms} field. */
  int timeoutMillis() {
    return (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
  }

  /**
   * A stub with the client's usual deadline when not waiting; when waiting, none (the coordinator
   * bounds it) or the timeout plus ten seconds for the answer to travel.
   */
  AdminGrpc.AdminBlockingStub stub(AdminClient client) {
    return !waiting
        ? client.stub()
        : timeout.isZero() ? client.stubWithoutDeadline() : client.stub(timeout.plusSeconds(10));
  }
}
