package io.cutpoint.api;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Worker ids bound to certificates: under mutual TLS a worker's certificate names its id as the SAN
 * URI {@code cutpoint://worker/ID} (one URI per id, for a host that runs several workers). The
 * coordinator reads it from every worker-facing call, and a worker from every peer that opens a
 * channel to it.
 */
public final class WorkerCertificates {

  /** The scheme and path of a worker certificate's SAN URI, before the id. */
  public static final String SAN_PREFIX = "cutpoint://worker/";

  /** SubjectAltName type of a uniformResourceIdentifier (RFC 5280). */
  private static final int URI = 6;

  private WorkerCertificates() {}

  /**
   * The worker ids the TLS peer's certificate names; empty without a session, a certificate or a
   * worker SAN URI.
   */
  public static SortedSet<String> certifiedWorkers(SSLSession session) {
    if (session == null) {
      return new TreeSet<>();
    }
    try {
      var chain = session.getPeerCertificates();
      if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
        return new TreeSet<>();
      }
      return workersOf(leaf);
    } catch (SSLPeerUnverifiedException e) {
      return new TreeSet<>();
    }
  }

  /** The worker ids of a certificate's {@code cutpoint://worker/ID} SAN URIs. */
  public static SortedSet<String> workersOf(X509Certificate cert) {
    SortedSet<String> ids = new TreeSet<>();
    try {
      var names = cert.getSubjectAlternativeNames();
      if (names == null) {
        return ids;
      }
      for (List<?> name : names) {
        if (name.size() >= 2
            && Integer.valueOf(URI).equals(name.get(0))
            && name.get(1) instanceof String uri
            && uri.startsWith(SAN_PREFIX)
            && uri.length() > SAN_PREFIX.length()) {
          ids.add(uri.substring(SAN_PREFIX.length()));
        }
      }
      return ids;
    } catch (CertificateParsingException e) {
      return ids;
    }
  }
}
