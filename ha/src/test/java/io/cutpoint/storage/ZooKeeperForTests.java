package io.cutpoint.storage;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.util.ServiceUtils;

/**
 * curator-test's ZooKeeper servers with every file they write inside one temporary directory, which
 * their {@code close()} deletes once they have stopped.
 *
 * <p>ZooKeeper's embedded server writes a {@code zookeeper.configuration*.properties} file next to
 * its data directory and never deletes it. With curator-test's default data directories, that is
 * the machine's /tmp itself: every test run left one file there per server started.
 */
public final class ZooKeeperForTests {

  static {
    // A server that cannot bind a port of its spec (another socket took it between curator-test's
    // pick and the bind) asks for System.exit(2): that ended the test JVM, and every test after
    // it, with no more than "the forked VM terminated". Let the test that started it fail instead.
    ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
  }

  private static final Pattern LEFT_IN_TMP =
      Pattern.compile("zookeeper\\.configuration.*|temp[0-9]+temp");

  private ZooKeeperForTests() {}

  /** One started server on an ephemeral port. */
  public static TestingServer server() throws Exception {
    Path root = Files.createTempDirectory("cutpoint-zk");
    try {
      return new TestingServer(spec(root, 1, -1, -1), true) {
        @Override
        public void close() throws IOException {
          closeThenDelete(super::close, root);
        }
      };
    } catch (Exception | Error e) {
      deleteTree(root);
      throw e;
    }
  }

  /**
   * An ensemble of {@code servers}, not yet started, each ticking every {@code tickMs} ms
   * (curator-test's default, 1 s, when -1). Start it before opening any other socket: its ports are
   * picked free here and bound only then. Start it before closing it, too: curator-test deletes a
   * server's scratch configuration file in {@code java.io.tmpdir} only when it stops a started
   * server.
   */
  public static TestingCluster cluster(int servers, int tickMs) throws IOException {
    Path root = Files.createTempDirectory("cutpoint-zk");
    return new TestingCluster(ensemble(root, servers, tickMs)) {
      @Override
      public void close() throws IOException {
        closeThenDelete(super::close, root);
      }
    };
  }

  /**
   * The specs of an ensemble whose data directories are under {@code root}. Each server's three
   * ports are distinct across the ensemble: curator-test picks a free port for each on its own, and
   * two picks can return the same one (an ensemble whose servers 2 and 3 had the same client port
   * failed to start).
   */
  static List<InstanceSpec> ensemble(Path root, int servers, int tickMs) throws IOException {
    Set<Integer> ports = new LinkedHashSet<>();
    while (ports.size() < 3 * servers) {
      ports.add(InstanceSpec.getRandomPort());
    }
    Iterator<Integer> free = ports.iterator();
    List<InstanceSpec> specs = new ArrayList<>();
    for (int i = 1; i <= servers; i++) {
      File data = Files.createDirectories(root.resolve("server-" + i)).toFile();
      specs.add(new InstanceSpec(data, free.next(), free.next(), free.next(), true, i, tickMs, -1));
    }
    return specs;
  }

  /**
   * The configuration files that ZooKeeper's embedded servers ({@code zookeeper.configuration*})
   * and curator-test ({@code temp*temp}) left in {@code java.io.tmpdir}.
   */
  public static Set<Path> filesLeftInTmp() throws IOException {
    try (Stream<Path> all = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return all.filter(p -> LEFT_IN_TMP.matcher(p.getFileName().toString()).matches())
          .collect(Collectors.toSet());
    }
  }

  private static InstanceSpec spec(Path root, int n, int serverId, int tickMs) throws IOException {
    File data = Files.createDirectories(root.resolve("server-" + n)).toFile();
    return new InstanceSpec(data, -1, -1, -1, true, serverId, tickMs, -1);
  }

  private static void closeThenDelete(Closeable server, Path root) throws IOException {
    try {
      server.close();
    } finally {
      deleteTree(root);
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + root, e);
    }
  }
}
