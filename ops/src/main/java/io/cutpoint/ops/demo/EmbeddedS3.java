package io.cutpoint.ops.demo;

import java.net.URI;
import java.util.Properties;
import java.util.UUID;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 API server in the demo's process ({@code demo --ha}): S3Proxy over jclouds' in-memory
 * ("transient") blob store, on a free loopback port, with signature checking on and a key made up
 * for the run. {@link #close()} stops it; what it held is gone.
 */
final class EmbeddedS3 implements AutoCloseable {
  private final String accessKey = "cutpoint-demo";
  private final String secretKey = UUID.randomUUID().toString();
  private final BlobStoreContext context;
  private final S3Proxy proxy;

  EmbeddedS3() throws Exception {
    context =
        ContextBuilder.newBuilder("transient")
            .credentials("identity", "credential")
            .overrides(new Properties())
            .build(BlobStoreContext.class);
    try {
      proxy =
          S3Proxy.builder()
              .blobStore(context.getBlobStore())
              .endpoint(URI.create("http://127.0.0.1:0"))
              .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKey, secretKey)
              .ignoreUnknownHeaders(true)
              .build();
      proxy.start();
    } catch (Exception | Error e) {
      context.close();
      throw e;
    }
  }

  /** A new SDK client of this server; the caller closes it. */
  S3Client newClient() {
    return S3Client.builder()
        .endpointOverride(URI.create("http://127.0.0.1:" + proxy.getPort()))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
        .build();
  }

  void createBucket(String bucket) {
    try (S3Client c = newClient()) {
      c.createBucket(b -> b.bucket(bucket));
    }
  }

  @Override
  public void close() {
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
