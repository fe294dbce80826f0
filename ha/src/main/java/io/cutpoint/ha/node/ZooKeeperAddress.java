package io.cutpoint.ha.node;

import java.util.Locale;

/**
 * Where the shared catalog and the leader election live: a ZooKeeper ensemble and the path under
 * which every coordinator of one cluster keeps its nodes, written {@code
 * HOST:PORT[,HOST:PORT...]/PATH}. The path is required: it names the cluster, and two clusters
 * sharing an ensemble differ by it.
 *
 * @param hosts the connect string without the path, e.g. {@code zk1:2181,zk2:2181}
 * @param path the cluster's ZooKeeper path, e.g. {@code /cutpoint/prod}
 */
public record ZooKeeperAddress(String hosts, String path) {

  /**
   * Reads {@code HOST:PORT[,HOST:PORT...]/PATH}.
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  public static ZooKeeperAddress parse(String text) {
    String t = text.trim();
    int slash = t.indexOf('/');
    if (slash <= 0) {
      throw new IllegalArgumentException(
          "'" + text + "' is not HOST:PORT[,HOST:PORT...]/PATH (the path names the cluster)");
    }
    String hosts = t.substring(0, slash);
    String path = t.substring(slash);
    for (String hostPort : hosts.split(",", -1)) {
      int colon = hostPort.lastIndexOf(':');
      if (colon <= 0 || colon == hostPort.length() - 1) {
        throw new IllegalArgumentException("'" + text + "': '" + hostPort + "' is not HOST:PORT");
      }
      try {
        int port = Integer.parseInt(hostPort.substring(colon + 1));
        if (port < 1 || port > 65535) {
          throw new IllegalArgumentException("'" + text + "': port " + port + " out of 1..65535");
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + text + "': '" + hostPort + "' has no port number");
      }
    }
    if (path.length() < 2
        || path.endsWith("/")
        || path.contains("//")
        || path.chars().anyMatch(c -> c <= ' ' || c >= 0x7f)) {
      throw new IllegalArgumentException(
          "'" + text + "': the path '" + path + "' must be like /cutpoint or /cutpoint/prod");
    }
    return new ZooKeeperAddress(hosts.toLowerCase(Locale.ROOT), path);
  }

  @Override
  public String toString() {
    return hosts + path;
  }
}
