package io.cutpoint.client.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway PKI made with the {@code openssl} command in a directory: a CA, a server certificate
 * for {@code localhost}/{@code 127.0.0.1} and a client certificate, both signed by the CA, with
 * PKCS#8 keys. Without {@code openssl} on the PATH it fails, it does not skip.
 */
public record TestPki(
    Path caCert, Path serverCert, Path serverKey, Path clientCert, Path clientKey) {

  /** Creates the files in {@code dir}. */
  public static TestPki create(Path dir) throws IOException, InterruptedException {
    Path ca = dir.resolve("ca.pem");
    Path caKey = dir.resolve("ca.key");
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        caKey.toString(),
        "-out",
        ca.toString(),
        "-days",
        "2",
        "-subj",
        "/CN=cutpoint-test-ca");
    Path serverCert = dir.resolve("server.pem");
    Path serverKey = dir.resolve("server.key");
    signed(
        dir,
        "server",
        "/CN=localhost",
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
        ca,
        caKey,
        serverCert,
        serverKey);
    Path clientCert = dir.resolve("client.pem");
    Path clientKey = dir.resolve("client.key");
    signed(
        dir,
        "client",
        "/CN=cutpoint-test-client",
        "extendedKeyUsage=clientAuth\n",
        ca,
        caKey,
        clientCert,
        clientKey);
    return new TestPki(ca, serverCert, serverKey, clientCert, clientKey);
  }

  /** A certificate and key signed by the CA. */
  public record Issued(Path cert, Path key) {}

  /**
   * A client certificate for worker {@code workerId}: its id as the SAN URI {@code
   * cutpoint://worker/ID}, as a coordinator under mutual TLS binds it to the worker id.
   */
  public Issued worker(String workerId) throws IOException, InterruptedException {
    return workers("worker-" + workerId, List.of(workerId));
  }

  /**
   * A client certificate (files {@code name.pem}, {@code name.key}) naming every one of {@code
   * workerIds}.
   */
  public Issued workers(String name, List<String> workerIds)
      throws IOException, InterruptedException {
    Path dir = caCert.getParent();
    Path cert = dir.resolve(name + ".pem");
    Path key = dir.resolve(name + ".key");
    List<String> uris = workerIds.stream().map(id -> "URI:cutpoint://worker/" + id).toList();
    signed(
        dir,
        name,
        "/CN=" + name,
        "subjectAltName=" + String.join(",", uris) + "\nextendedKeyUsage=clientAuth,serverAuth\n",
        caCert,
        dir.resolve("ca.key"),
        cert,
        key);
    return new Issued(cert, key);
  }

  private static void signed(
      Path dir,
      String name,
      String subject,
      String extensions,
      Path ca,
      Path caKey,
      Path cert,
      Path key)
      throws IOException, InterruptedException {
    Path csr = dir.resolve(name + ".csr");
    Path ext = Files.writeString(dir.resolve(name + ".ext"), extensions, StandardCharsets.US_ASCII);
    openssl(
        dir,
        "req",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        key.toString(),
        "-out",
        csr.toString(),
        "-subj",
        subject);
    openssl(
        dir,
        "x509",
        "-req",
        "-in",
        csr.toString(),
        "-CA",
        ca.toString(),
        "-CAkey",
        caKey.toString(),
        "-CAcreateserial",
        "-out",
        cert.toString(),
        "-days",
        "2",
        "-extfile",
        ext.toString());
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add("openssl");
    command.addAll(List.of(args));
    Path log = dir.resolve("openssl.log");
    Process p;
    try {
      p =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "the TLS tests need the 'openssl' command on the PATH to "
              + "make their certificates: "
              + e.getMessage(),
          e);
    }
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("openssl did not finish in 30 s: " + command);
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          "openssl failed (exit " + p.exitValue() + "): " + command + "\n" + Files.readString(log));
    }
  }
}
