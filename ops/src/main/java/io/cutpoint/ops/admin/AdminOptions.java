package io.cutpoint.ops.admin;

import io.cutpoint.util.Durations;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Flags every admin command shares: where the coordinator is, JSON output, the call deadline,
 * the admin token and TLS.
 */
public final class AdminOptions {

  @Option(
      names = "--server",
      paramLabel = "HOST:PORT",
      defaultValue = "${env:CUTPOINT_SERVER:-localhost:7070}",
      description = "Coordinator to talk to (env CUTPOINT_SERVER; default: ${DEFAULT-VALUE}).")
  String server;

  @Option(names = "--json", description = "Print JSON for machines instead of tables.")
  boolean json;

  @Option(
      names = "--deadline",
      paramLabel = "DURATION",
      defaultValue = "30s",
      description = "Give up on a call to the coordinator after this long (default: ${DEFAULT-VALUE}).")
  String deadline;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description = "File holding the coordinator's admin token (else env CUTPOINT_ADMIN_TOKEN "
          + "holds the token itself).")
  Path tokenFile;

  @Option(
      names = "--tls-ca",
      paramLabel = "FILE",
      description = "Talk TLS, trusting the CA certificates in this PEM file.")
  Path tlsCa;

  @Option(
      names = "--tls-cert",
      paramLabel = "FILE",
      description = "Client certificate chain (PEM) for a coordinator that wants mutual TLS; "
          + "needs --tls-ca and --tls-key.")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "FILE",
      description = "Private key (PKCS#8 PEM) of --tls-cert.")
  Path tlsKey;

  /** The environment variable holding the admin token itself. */
  public static final String TOKEN_ENV = "CUTPOINT_ADMIN_TOKEN";

  /** The coordinator address, checked to be HOST:PORT. */
  public String server(CommandSpec spec) {
    return checkTarget(spec, server);
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
      return new AdminClient(target, d, credentials, token);
    } catch (IllegalArgumentException e) {
      // TLS files are parsed when the channel is built.
      throw new ParameterException(spec.commandLine(), "cannot use the TLS files (--tls-ca " + tlsCa
          + (tlsCert == null ? "" : ", --tls-cert " + tlsCert + ", --tls-key " + tlsKey)
          + "; PEM certificates and a PKCS#8 PEM key expected): " + e.getMessage());
    }
  }

  /**
   * The admin token: the content of {@code --token-file}, else {@code envToken}; null when
   * neither is given.
   */
  String token(CommandSpec spec, String envToken) {
    String t;
    if (tokenFile != null) {
      try {
        t = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new ParameterException(spec.commandLine(),
            "cannot read --token-file " + tokenFile + ": " + e.getMessage());
      }
      if (t.isEmpty()) {
        throw new ParameterException(spec.commandLine(), "--token-file " + tokenFile + " is empty");
      }
    } else {
      t = envToken == null || envToken.isBlank() ? null : envToken.strip();
    }
    if (t != null && t.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
      throw new ParameterException(spec.commandLine(),
          "the admin token must not contain whitespace or control characters");
    }
    return t;
  }

  /** Plaintext, or TLS when {@code --tls-ca} is given (with a client certificate if asked). */
  ChannelCredentials credentials(CommandSpec spec) {
    if (tlsCa == null) {
      if (tlsCert != null || tlsKey != null) {
        throw new ParameterException(spec.commandLine(), "--tls-cert and --tls-key need --tls-ca");
      }
      return InsecureChannelCredentials.create();
    }
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new ParameterException(spec.commandLine(), "--tls-cert and --tls-key go together");
    }
    TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
    try {
      b.trustManager(tlsCa.toFile());
    } catch (IOException | IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(),
          "cannot read CA certificates from --tls-ca " + tlsCa + ": " + e.getMessage());
    }
    if (tlsCert != null) {
      try {
        b.keyManager(tlsCert.toFile(), tlsKey.toFile());
      } catch (IOException | IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "cannot read the client key pair from --tls-cert "
            + tlsCert + " and --tls-key " + tlsKey + ": " + e.getMessage());
      }
    }
    return b.build();
  }

  static String checkTarget(CommandSpec spec, String target) {
    String t = target == null ? "" : target.trim();
    int colon = t.lastIndexOf(':');
    boolean ok = colon > 0 && colon < t.length() - 1;
    if (ok) {
      try {
        int port = Integer.parseInt(t.substring(colon + 1));
        ok = port > 0 && port <= 65535;
      } catch (NumberFormatException e) {
        ok = false;
      }
    }
    if (!ok) {
      throw new ParameterException(spec.commandLine(),
          "--server must be HOST:PORT with a port 1-65535, got '" + target + "'");
    }
    return t;
  }
}
