package io.cutpoint.ops.admin;

import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.Logging;
import io.grpc.StatusRuntimeException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Base of the commands that talk to a running coordinator. */
abstract class AdminCommand implements Callable<Integer> {

  @Mixin AdminOptions admin;

  @Spec CommandSpec spec;

  @Override
  public final Integer call() {
    Logging.quietGrpc();
    admin.server(spec); // a usage error before any call
    try (AdminClient client = admin.connect(spec)) {
      int code = run(client, spec.commandLine().getOut());
      spec.commandLine().getOut().flush();
      return code;
    } catch (StatusRuntimeException e) {
      throw CliFailure.failed(GrpcErrors.describe(e, admin.server(spec), subject()) + tlsHint(e));
    }
  }

  /**
   * A hint for a plaintext call that a TLS coordinator cut off: such a call ends UNAVAILABLE with
   * no reason a person can act on (gRPC says "io exception" or "Network closed").
   */
  String tlsHint(StatusRuntimeException e) {
    return admin.tls() ? "" : GrpcErrors.plaintextHint(e);
  }

  /** The coordinator's address, as the user gave it. */
  protected String target() {
    return admin.server(spec);
  }

  /** Does the work; returns the exit code. */
  protected abstract int run(AdminClient client, PrintWriter out);

  /** What the command is about, for error messages (e.g. {@code snapshot 42}). */
  protected String subject() {
    return "";
  }

  protected boolean json() {
    return admin.json();
  }
}
