package io.cutpoint.storage;

import java.net.URI;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3 API server in the test JVM: S3Proxy over jclouds' in-memory ("transient") blob store,
 * on an ephemeral loopback port, with AWS signature checking on. {@link #client()} is an AWS SDK
 * client for it; {@link #close()} stops both.
 */
public final class S3Server implements AutoCloseable {
  public static final String ACCESS_KEY = "cutpoint-test";
  public static final String SECRET_KEY = "cutpoint-test-secret";

  private final BlobStoreContext context;
  private final SlowBlobStore blobs;
  private volatile S3Proxy proxy;
  private final S3Client client;
  private final int port;

  public S3Server() throws Exception {
    context =
        ContextBuilder.newBuilder("transient")
            .credentials("identity", "credential")
            .overrides(new Properties())
            .build(BlobStoreContext.class);
    blobs = new SlowBlobStore(context.getBlobStore());
    proxy = proxy(0);
    proxy.start();
    port = proxy.getPort();
    client = newClient();
  }

  private S3Proxy proxy(int port) {
    return S3Proxy.builder()
        .blobStore(blobs)
        .endpoint(URI.create("http://127.0.0.1:" + port))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .ignoreUnknownHeaders(true)
        .build();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** A new SDK client for this server; the caller closes it. */
  public S3Client newClient() {
    return S3Client.builder()
        .endpointOverride(endpoint())
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  /** The client this server closes. */
  public S3Client client() {
    return client;
  }

  public void createBucket(String bucket) {
    client.createBucket(b -> b.bucket(bucket));
  }

  /** Stops the HTTP server (the blob store stays): requests are refused from now on. */
  public void stopServer() throws Exception {
    proxy.stop();
  }

  /** Serves the same blobs again, on the same port, after {@link #stopServer()}. */
  public void startServer() throws Exception {
    S3Proxy again = proxy(endpoint().getPort());
    again.start();
    proxy = again;
  }

  /** Every blob call from now on takes {@code latency} longer (zero: as fast as it can). */
  public void slowDown(java.time.Duration latency) {
    blobs.latency = latency;
  }

  @Override
  public void close() {
    client.close();
    try {
      if (!"STOPPED".equals(proxy.getState())) {
        proxy.stop();
      }
    } catch (Exception e) {
      throw new IllegalStateException("stopping S3Proxy", e);
    } finally {
      context.close();
    }
  }
}
