package io.cutpoint.ops.admin;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * How a command proves itself to a coordinator: the admin token ({@code --token-file}, else env
 * {@value #TOKEN_ENV}) and TLS ({@code --tls-ca}, {@code --tls-cert}, {@code --tls-key}). The admin
 * commands have them through {@link AdminOptions}; {@code demo --connect} mixes them in.
 */
public class CoordinatorCredentials {

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "File holding the coordinator's admin token (else env CUTPOINT_ADMIN_TOKEN "
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
      description =
          "Client certificate chain (PEM) for a coordinator that wants mutual TLS; "
              + "needs --tls-ca and --tls-key.")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "FILE",
      description = "Private key (PKCS#8 PEM) of --tls-cert.")
  Path tlsKey;

  /** The environment variable holding the admin token itself. */
  public static final String TOKEN_ENV = "CUTPOINT_ADMIN_TOKEN";

  /** True when any of these flags was given. */
  public boolean given() {
    return tokenFile != null || tlsCa != null || tlsCert != null || tlsKey != null;
  }

  /**
   * The admin token: the content of {@code --token-file}, else {@code envToken}; null when neither
   * is given.
   */
  public String token(CommandSpec spec, String envToken) {
    String t;
    if (tokenFile != null) {
      try {
        t = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new ParameterException(
            spec.commandLine(), "cannot read --token-file " + tokenFile + ": " + e.getMessage());
      }
      if (t.isEmpty()) {
        throw new ParameterException(spec.commandLine(), "--token-file " + tokenFile + " is empty");
      }
    } else {
      t = envToken == null || envToken.isBlank() ? null : envToken.strip();
    }
    if (t != null && t.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
      throw new ParameterException(
          spec.commandLine(), "the admin token must not contain whitespace or control characters");
    }
    return t;
  }

  /** Plaintext, or TLS when {@code --tls-ca} is given (with a client certificate if asked). */
  public ChannelCredentials credentials(CommandSpec spec) {
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
      throw new ParameterException(
          spec.commandLine(),
          "cannot read CA certificates from --tls-ca " + tlsCa + ": " + e.getMessage());
    }
    if (tlsCert != null) {
      try {
        b.keyManager(tlsCert.toFile(), tlsKey.toFile());
      } catch (IOException | IllegalArgumentException e) {
        throw new ParameterException(
            spec.commandLine(),
            "cannot read the client key pair from --tls-cert "
                + tlsCert
                + " and --tls-key "
                + tlsKey
                + ": "
                + e.getMessage());
      }
    }
    return b.build();
  }

  /**
   * The usage error for TLS files that parsed as files but not as certificates or a key (found when
   * a channel is built).
   */
  public ParameterException unusableTlsFiles(CommandSpec spec, IllegalArgumentException e) {
    return new ParameterException(
        spec.commandLine(),
        "cannot use the TLS files (--tls-ca "
            + tlsCa
            + (tlsCert == null ? "" : ", --tls-cert " + tlsCert + ", --tls-key " + tlsKey)
            + "; PEM certificates and a PKCS#8 PEM key expected): "
            + e.getMessage());
  }
}
