package io.cutpoint.client;

import java.net.InetSocketAddress;

/** Parses and checks {@code host:port} strings. */
final class PeerEndpoint {

  private PeerEndpoint() {}

  /** Returns {@code address} when it has the form host:port with a port in 1..65535. */
  static String check(String address) {
    parse(address);
    return address;
  }

  static InetSocketAddress parse(String address) {
    if (address == null) {
      throw new IllegalArgumentException("peer address must not be null");
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IllegalArgumentException("peer address must be host:port, got '" + address + "'");
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("peer address has a bad port: '" + address + "'");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("peer address port out of range: '" + address + "'");
    }
    return new InetSocketAddress(host, port);
  }
}
