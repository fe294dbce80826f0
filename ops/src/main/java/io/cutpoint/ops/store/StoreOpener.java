package io.cutpoint.ops.store;

import io.cutpoint.ha.LeaderElection;
import io.cutpoint.ha.S3SnapshotStore;
import io.cutpoint.ha.Terms;
import io.cutpoint.ha.node.HaCoordinator;
import io.cutpoint.ha.node.HaSettings;
import io.cutpoint.ha.node.StoreUrl;
import io.cutpoint.ha.node.ZooKeeperAddress;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Opens the stores an offline command works on, as {@code cutpoint server} would: a RocksDB data
 * directory, or {@code s3://BUCKET/PREFIX} with its catalog in ZooKeeper. Refuses (exit 2) a store
 * that a running coordinator holds: RocksDB's lock on the directory; for the shared store, any
 * coordinator in the cluster's election. An S3 store is opened under a new leader term, as a new
 * leader opens it, so that a coordinator started meanwhile fences this one rather than the reverse
 * being silent.
 */
final class StoreOpener implements AutoCloseable {

  /** A store as the command line names it: a directory or an {@code s3://} URL. */
  sealed interface Address permits Rocks, Shared {
    /**
     * Reads {@code s3://BUCKET/PREFIX} or a directory.
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    static Address parse(String text) {
      if (text.isBlank()) {
        throw new IllegalArgumentException("an empty store");
      }
      if (text.trim().toLowerCase(Locale.ROOT).startsWith("s3:")) {
        return new Shared(StoreUrl.parse(text));
      }
      return new Rocks(Path.of(text.trim()).toAbsolutePath().normalize());
    }
  }

  /** A RocksDB data directory. */
  record Rocks(Path dir) implements Address {
    @Override
    public String toString() {
      return dir.toString();
    }
  }

  /** A shared store in an S3-compatible bucket. */
  record Shared(StoreUrl url) implements Address {
    @Override
    public String toString() {
      return url.toString();
    }
  }

  /**
   * How to reach the shared store, as the server's settings of the same names say.
   *
   * @param zookeeper null when no store is shared
   * @param s3Endpoint null = AWS S3
   */
  record SharedSettings(
      ZooKeeperAddress zookeeper, URI s3Endpoint, String s3Region, boolean s3PathStyle) {}

  private final SharedSettings settings;
  private final List<AutoCloseable> open = new ArrayList<>();

  StoreOpener(SharedSettings settings) {
    this.settings = settings;
  }

  /**
   * Opens an existing store to read ({@code mustExist}) or a store to write, which may be new.
   *
   * @param flag the flag that named it, for the messages
   * @throws CliFailure exit 2 for a store that does not exist or is in use; exit 1 if it cannot be
   *     opened
   */
  SnapshotStore open(String flag, Address address, boolean mustExist) {
    if (address instanceof Rocks r) {
      return openRocks(flag, r.dir(), mustExist);
    }
    return openShared(flag, ((Shared) address).url());
  }

  private SnapshotStore openRocks(String flag, Path dir, boolean mustExist) {
    boolean isStore = Files.exists(dir.resolve("CURRENT"));
    if (mustExist && !isStore) {
      throw CliFailure.usage(flag + " " + dir + " holds no snapshot store");
    }
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw CliFailure.usage(
          flag + " " + dir + " is a file, not a directory: give a new directory");
    }
    if (!isStore && Files.isDirectory(dir) && !isEmpty(dir)) {
      throw CliFailure.usage(
          flag + " " + dir + " is neither a snapshot store nor empty: give a new directory");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw CliFailure.failed(flag + ": cannot create " + dir + ": " + e.getMessage());
    }
    try {
      RocksSnapshotStore store = RocksSnapshotStore.open(dir);
      open.add(store);
      return store;
    } catch (StoreException e) {
      if (e.getMessage().contains("is in use by another process")) {
        throw CliFailure.usage(
            flag + " " + dir + " is in use by a running coordinator (or another command): stop it");
      }
      throw CliFailure.failed(flag + " " + dir + ": " + e.getMessage());
    }
  }

  private SnapshotStore openShared(String flag, StoreUrl url) {
    ZooKeeperAddress zk = settings.zookeeper();
    if (zk == null) {
      throw CliFailure.usage(
          flag + " " + url + " needs --zookeeper HOST:PORT/PATH: its catalog lives there");
    }
    CuratorFramework client = HaCoordinator.zookeeper(zk.hosts());
    open.add(client);
    try {
      if (!client.blockUntilConnected(15, TimeUnit.SECONDS)) {
        throw CliFailure.failed("cannot reach ZooKeeper at " + zk.hosts() + " within 15 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CliFailure.failed("interrupted while connecting to ZooKeeper");
    }
    try {
      List<String> running = LeaderElection.participants(client, zk.path());
      if (!running.isEmpty()) {
        throw CliFailure.usage(
            flag
                + " "
                + url
                + " is in use: coordinators of the cluster at zookeeper "
                + zk
                + " are running ("
                + String.join(", ", running)
                + "): stop every one of them");
      }
      S3Client s3 =
          HaCoordinator.s3(
              new HaSettings(
                  zk,
                  url,
                  settings.s3Endpoint(),
                  settings.s3Region(),
                  settings.s3PathStyle(),
                  null,
                  HaCoordinator.ZK_SESSION_TIMEOUT));
      open.add(s3);
      S3SnapshotStore store =
          S3SnapshotStore.open(
              s3,
              client,
              new S3SnapshotStore.Location(url.bucket(), url.prefix(), zk.path()),
              Terms.take(client, zk.path()),
              S3SnapshotStore.Options.DEFAULT);
      open.add(store); // closed before its clients
      return store;
    } catch (StoreException e) {
      throw CliFailure.failed(flag + " " + url + ": " + e.getMessage());
    }
  }

  private static boolean isEmpty(Path dir) {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  /** Closes every store, then the clients, in the reverse order of opening. */
  @Override
  public void close() {
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).close();
      } catch (Exception e) {
        System.err.println("cutpoint: closing " + open.get(i) + " failed: " + e);
      }
    }
    open.clear();
  }
}
