package io.cutpoint.ops.local;

import io.cutpoint.ha.S3SnapshotStore;
import io.cutpoint.ha.Terms;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A shared store's two servers in this JVM (the bench's S3 row, {@code demo --ha}, tests), on
 * ephemeral loopback ports: an S3 API server (S3Proxy over jclouds' in-memory blob store, AWS
 * signatures checked) with one bucket, and a ZooKeeper server (curator-test's {@link
 * TestingServer}, in a temporary directory), with a client of each. {@link #close()} stops all of
 * it and deletes the directory.
 *
 * <p>ZooKeeper's embedded server writes its configuration file next to its data directory, and
 * never deletes it; so the data directory is a subdirectory of the one this deletes.
 */
public final class LocalSharedStore implements AutoCloseable {
  /** The bucket it creates. */
  public static final String BUCKET = "cutpoint";

  /** The credentials the S3 server accepts. */
  public static final String ACCESS_KEY = "cutpoint-local";

  public static final String SECRET_KEY = "cutpoint-local-secret";

  private final Path zkDir;
  private final TestingServer zkServer;
  private final CuratorFramework zk;
  private final BlobStoreContext blobs;
  private final S3Proxy proxy;
  private final S3Client s3;

  private LocalSharedStore(
      Path zkDir,
      TestingServer zkServer,
      CuratorFramework zk,
      BlobStoreContext blobs,
      S3Proxy proxy,
      S3Client s3) {
    this.zkDir = zkDir;
    this.zkServer = zkServer;
    this.zk = zk;
    this.blobs = blobs;
    this.proxy = proxy;
    this.s3 = s3;
  }

  /** Starts both servers and creates {@link #BUCKET}. */
  public static LocalSharedStore start() {
    Path zkDir = null;
    TestingServer zkServer = null;
    CuratorFramework zk = null;
    BlobStoreContext blobs = null;
    S3Proxy proxy = null;
    try {
      // ticking every 250 ms, the server grants sessions of 0.5 to 5 s (the demo's leaders: 3 s)
      zkDir = Files.createTempDirectory("cutpoint-zk");
      File data = Files.createDirectory(zkDir.resolve("data")).toFile();
      zkServer = new TestingServer(new InstanceSpec(data, -1, -1, -1, true, -1, 250, -1), true);
      zk =
          CuratorFrameworkFactory.newClient(
              zkServer.getConnectString(), new ExponentialBackoffRetry(100, 3));
      zk.start();
      if (!zk.blockUntilConnected(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the local ZooKeeper server did not answer in 60 s");
      }
      blobs =
          ContextBuilder.newBuilder("transient")
              .credentials("identity", "credential")
              .overrides(new Properties())
              .build(BlobStoreContext.class);
      proxy =
          S3Proxy.builder()
              .blobStore(blobs.getBlobStore())
              .endpoint(URI.create("http://127.0.0.1:0"))
              .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
              .ignoreUnknownHeaders(true)
              .build();
      proxy.start();
      S3Client s3 = client(proxy.getPort());
      s3.createBucket(b -> b.bucket(BUCKET));
      return new LocalSharedStore(zkDir, zkServer, zk, blobs, proxy, s3);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop(zkDir, zkServer, zk, blobs, proxy);
      throw new IllegalStateException("interrupted while starting the local shared store", e);
    } catch (Exception e) {
      stop(zkDir, zkServer, zk, blobs, proxy);
      throw new IllegalStateException("cannot start the local shared store: " + e, e);
    }
  }

  /** {@code HOST:PORT} of the ZooKeeper server. */
  public String zookeeperHosts() {
    return zkServer.getConnectString();
  }

  /** The S3 server's endpoint. */
  public URI s3Endpoint() {
    return URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  /** A client of the S3 server; closed by {@link #close()}. */
  public S3Client s3() {
    return s3;
  }

  /** A new client of the S3 server, for a caller that closes it itself. */
  public S3Client newS3Client() {
    return client(proxy.getPort());
  }

  private static S3Client client(int port) {
    return S3Client.builder()
        .endpointOverride(URI.create("http://127.0.0.1:" + port))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  /** A started client of the ZooKeeper server; closed by {@link #close()}. */
  public CuratorFramework zookeeper() {
    return zk;
  }

  /**
   * Takes a new leader term at {@code catalogPath} and opens the store under it, with its objects
   * under {@code prefix} in {@link #BUCKET}; the caller closes it before this.
   */
  public S3SnapshotStore open(String prefix, String catalogPath) {
    return S3SnapshotStore.open(
        s3,
        zk,
        new S3SnapshotStore.Location(BUCKET, prefix, catalogPath),
        Terms.take(zk, catalogPath),
        S3SnapshotStore.Options.DEFAULT);
  }

  @Override
  public void close() {
    s3.close();
    stop(zkDir, zkServer, zk, blobs, proxy);
  }

  private static void stop(
      Path zkDir,
      TestingServer zkServer,
      CuratorFramework zk,
      BlobStoreContext blobs,
      S3Proxy proxy) {
    if (zk != null) {
      zk.close();
    }
    try {
      if (proxy != null) {
        proxy.stop();
      }
    } catch (Exception e) {
      System.err.println("cutpoint: stopping the local S3 server failed: " + e);
    }
    if (blobs != null) {
      blobs.close();
    }
    if (zkServer != null) {
      try {
        zkServer.close();
      } catch (IOException e) {
        System.err.println("cutpoint: stopping the local ZooKeeper server failed: " + e);
      }
    }
    if (zkDir != null) {
      ScratchDirs.delete(zkDir);
    }
  }
}
