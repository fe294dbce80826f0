package io.cutpoint.ops.admin;

import io.cutpoint.client.session.CoordinatorAddresses;
import io.cutpoint.util.Durations;
import io.grpc.ChannelCredentials;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Flags every admin command shares: where the coordinator is, JSON output, the call deadline, and
 * (from {@link CoordinatorCredentials}) the admin token and TLS.
 */
public final class AdminOptions extends CoordinatorCredentials {

  @Option(
      names = "--server",
      paramLabel = "HOST:PORT",
      defaultValue = "${env:CUTPOINT_SERVER:-localhost:7070}",
      description = "Coordinator to talk to (env CUTPOINT_SERVER; default: ${DEFAULT-VALUE}).")
  String server;

  @Option(
      names = "--coordinators",
      paramLabel = "HOST:PORT,...",
      description =
          "The coordinators of a highly available cluster: the command asks them in turn, follows "
              + "a standby's pointer and talks to the leader (instead of --server).")
  String coordinators;

  /** The leader {@code --coordinators} led to, once found. */
  private String leader;

  @Option(names = "--json", description = "Print JSON for machines instead of tables.")
  boolean json;

  @Option(
      names = "--deadline",
      paramLabel = "DURATION",
      defaultValue = "30s",
      description =
          "Give up on a call to the coordinator after this long (default: ${DEFAULT-VALUE}).")
  String deadline;

  /**
   * The coordinator address, checked to be HOST:PORT; with {@code --coordinators}, the leader once
   * {@link #connect} found it, the list until then.
   */
  public String server(CommandSpec spec) {
    if (coordinators != null) {
      List<String> all = coordinators(spec);
      return leader != null ? leader : String.join(",", all);
    }
    return checkTarget(spec, server);
  }

  /** The {@code --coordinators} list, checked; a usage error with --server too or a bad entry. */
  private List<String> coordinators(CommandSpec spec) {
    if (spec.commandLine().getParseResult().hasMatchedOption("--server")) {
      throw new ParameterException(
          spec.commandLine(), "--server and --coordinators name the coordinator twice: give one");
    }
    try {
      return CoordinatorAddresses.parse(coordinators);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "bad --coordinators: " + e.getMessage());
    }
  }

  public boolean json() {
    return json;
  }

  /** True when the calls go over TLS ({@code --tls-ca} given). */
  public boolean tls() {
    return tlsCa != null;
  }

  /** The per-call deadline. */
  public Duration deadline(CommandSpec spec) {
    try {
      Duration d = Durations.parse(deadline);
      if (d.isZero()) {
        throw new IllegalArgumentException("'0' is not a usable deadline");
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "bad --deadline: " + e.getMessage());
    }
  }

  /** Opens a connection to the coordinator (no I/O until the first call). */
  public AdminClient connect(CommandSpec spec) {
    String target = server(spec);
    Duration d = deadline(spec);
    ChannelCredentials credentials = credentials(spec);
    String token = token(spec, System.getenv(TOKEN_ENV));
    try {
      if (coordinators != null) {
        target = leader = LeaderProbe.find(coordinators(spec), d, credentials, token);
      }
      return new AdminClient(target, d, credentials, token);
    } catch (IllegalArgumentException e) {
      // TLS files are parsed when the channel is built.
      throw unusableTlsFiles(spec, e);
    }
  }

  static String checkTarget(CommandSpec spec, String target) {
    try {
      return CoordinatorAddresses.checkOne(target);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(),
          "--server must be HOST:PORT with a port 1-65535, got '" + target + "'");
    }
  }
}
