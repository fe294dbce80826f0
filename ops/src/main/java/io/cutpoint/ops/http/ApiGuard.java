package io.cutpoint.ops.http;

import io.grpc.Status;
import io.javalin.http.Context;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;

/**
 * Who may call the HTTP API ({@code /api/v1}), checked before a request reaches the Admin service.
 *
 * <ul>
 *   <li>Without an admin token or client certificates, the API answers only a client on this host
 *       that names this host by a loopback name ({@code localhost}, {@code 127.0.0.1}, {@code
 *       [::1]}): the HTTP port binds every interface by default for Prometheus, and an open Admin
 *       service must not come with it. The Host check keeps a web page whose name a DNS rebinding
 *       points at 127.0.0.1 out.
 *   <li>Always: a request that changes something ({@code POST}, {@code DELETE}) from a browser page
 *       of another origin is refused, since a browser sends such a simple request to any address
 *       without asking first. Clients other than browsers send no {@code Origin} and pass.
 * </ul>
 *
 * Refusals are PERMISSION_DENIED (HTTP 403) and say what to do.
 */
record ApiGuard(boolean authenticated) {

  /** Throws a PERMISSION_DENIED {@link io.grpc.StatusRuntimeException} if the call is refused. */
  void check(Context ctx) {
    Optional<String> why = refusal(ctx.ip(), ctx.host(), ctx.method().name(), ctx.header("Origin"));
    if (why.isPresent()) {
      throw Status.PERMISSION_DENIED.withDescription(why.get()).asRuntimeException();
    }
  }

  /**
   * Why a call is refused, if it is.
   *
   * @param remoteIp the client's address (the connection's, never a forwarded header's)
   * @param host the request's {@code Host} header
   * @param method the HTTP method
   * @param origin the {@code Origin} header, null if none
   */
  Optional<String> refusal(String remoteIp, String host, String method, String origin) {
    if (!authenticated && !(isLoopback(remoteIp) && namesLoopback(hostOf(host)))) {
      return Optional.of(
          "without an admin token the HTTP API answers only clients on the coordinator's host"
              + " that call it as localhost; set --admin-token-file to call it from elsewhere");
    }
    if ((method.equals("POST") || method.equals("DELETE")) && crossOrigin(origin, host)) {
      return Optional.of(
          "a "
              + method
              + " from a page of another origin ("
              + AdminRequests.shorten(origin)
              + ") is refused");
    }
    return Optional.empty();
  }

  private static boolean crossOrigin(String origin, String host) {
    if (origin == null) {
      return false;
    }
    try {
      String authority = URI.create(origin.strip()).getRawAuthority();
      return authority == null || host == null || !authority.equalsIgnoreCase(host.strip());
    } catch (IllegalArgumentException e) {
      return true; // garbage
    }
  }

  /** The host of a Host header: {@code name}, {@code name:port}, {@code [v6]:port}. */
  static String hostOf(String header) {
    if (header == null) {
      return "";
    }
    String h = header.strip();
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? h : h.substring(1, end);
    }
    int colon = h.indexOf(':');
    return colon < 0 ? h : h.substring(0, colon);
  }

  /** Whether a Host header's host is a loopback name or address, without asking DNS. */
  static boolean namesLoopback(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.equals("localhost") || h.endsWith(".localhost")) {
      return true;
    }
    return isLiteral(h) && isLoopback(h);
  }

  /** Whether an IP address literal is a loopback address. */
  static boolean isLoopback(String ip) {
    if (ip == null) {
      return false;
    }
    String literal = ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
    if (!isLiteral(literal)) {
      return false;
    }
    try {
      return InetAddress.getByName(literal).isLoopbackAddress(); // a literal: no DNS lookup
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static boolean isLiteral(String s) {
    return !s.isEmpty()
        && (s.indexOf(':') >= 0 || s.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9')));
  }
}
