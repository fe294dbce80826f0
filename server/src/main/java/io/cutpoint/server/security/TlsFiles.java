package io.cutpoint.server.security;

import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The PEM files a TLS port is served with.
 *
 * @param certChain the server's certificate chain (PEM)
 * @param privateKey the server's private key (PEM, PKCS#8)
 * @param clientCa certificates of the CAs that sign client certificates (PEM); when set, every
 *     client must present a certificate they signed (mutual TLS); null = no client certificates
 */
public record TlsFiles(Path certChain, Path privateKey, Path clientCa) {

  public TlsFiles {
    Objects.requireNonNull(certChain, "certChain");
    Objects.requireNonNull(privateKey, "privateKey");
  }

  /** TLS without client certificates. */
  public static TlsFiles of(Path certChain, Path privateKey) {
    return new TlsFiles(certChain, privateKey, null);
  }

  /** True when clients must present a certificate. */
  public boolean mutual() {
    return clientCa != null;
  }

  /**
   * Reads the files into server credentials.
   *
   * @throws IOException naming the file that cannot be read or parsed
   */
  public ServerCredentials serverCredentials() throws IOException {
    readable("certificate chain", certChain);
    readable("private key", privateKey);
    TlsServerCredentials.Builder b = TlsServerCredentials.newBuilder();
    try {
      b.keyManager(certChain.toFile(), privateKey.toFile());
    } catch (IOException | IllegalArgumentException e) {
      throw new TlsSetupException(
          "cannot load TLS key pair from "
              + certChain
              + " and "
              + privateKey
              + " (PEM certificate chain and PKCS#8 PEM key expected): "
              + e.getMessage(),
          e);
    }
    if (clientCa != null) {
      readable("client CA", clientCa);
      try {
        b.trustManager(clientCa.toFile());
      } catch (IOException | IllegalArgumentException e) {
        throw new TlsSetupException(
            "cannot load client CA certificates from " + clientCa + ": " + e.getMessage(), e);
      }
      b.clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
    }
    return b.build();
  }

  private static void readable(String what, Path p) throws IOException {
    if (!Files.isReadable(p)) {
      throw new TlsSetupException(
          "TLS " + what + " file " + p + " does not exist or is not readable", null);
    }
  }
}
