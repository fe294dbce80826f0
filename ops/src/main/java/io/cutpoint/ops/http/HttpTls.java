package io.cutpoint.ops.http;

import io.cutpoint.server.security.TlsFiles;
import io.cutpoint.server.security.TlsSetupException;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.JdkSslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslProvider;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The HTTP port's TLS from the same PEM files as the gRPC port: the certificate chain and PKCS#8
 * key, and with a client CA, mutual TLS (a client without a certificate that CA signed is refused
 * in the handshake). The PEM files are read with the same Netty code as gRPC's.
 */
final class HttpTls {

  private HttpTls() {}

  static SslContextFactory.Server factory(TlsFiles tls) throws TlsSetupException {
    SSLContext context;
    try {
      SslContextBuilder b =
          SslContextBuilder.forServer(tls.certChain().toFile(), tls.privateKey().toFile())
              .sslProvider(SslProvider.JDK);
      if (tls.mutual()) {
        b.trustManager(tls.clientCa().toFile()).clientAuth(ClientAuth.REQUIRE);
      }
      context = ((JdkSslContext) b.build()).context();
    } catch (SSLException | IllegalArgumentException e) {
      throw new TlsSetupException(
          "cannot serve HTTPS with certificate chain "
              + tls.certChain()
              + ", private key "
              + tls.privateKey()
              + " and client CA "
              + tls.clientCa()
              + ": "
              + e.getMessage(),
          e);
    }
    SslContextFactory.Server factory = new SslContextFactory.Server();
    factory.setSslContext(context);
    factory.setNeedClientAuth(tls.mutual());
    return factory;
  }
}
