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
final class S3Server implements AutoCloseable {
  static final String ACCESS_KEY = "cutpoint-test";
  static final String SECRET_KEY = "cutpoint-test-secret";

  private final BlobStoreContext context;
  private final S3Proxy proxy;
  private final S3Client client;

  S3Server() throws Exception {
    context =
        ContextBuilder.newBuilder("transient")
            .credentials("identity", "credential")
            .overrides(new Properties())
            .build(BlobStoreContext.class);
    proxy =
        S3Proxy.builder()
            .blobStore(context.getBlobStore())
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .ignoreUnknownHeaders(true)
            .build();
    proxy.start();
    client = newClient();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  /** A new SDK client for this server; the caller closes it. */
  S3Client newClient() {
    return S3Client.builder()
        .endpointOverride(endpoint())
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  /** The client this server closes. */
  S3Client client() {
    return client;
  }

  void createBucket(String bucket) {
    client.createBucket(b -> b.bucket(bucket));
  }

  /** Stops the HTTP server (the blob store stays): requests are refused from now on. */
  void stopServer() throws Exception {
    proxy.stop();
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
