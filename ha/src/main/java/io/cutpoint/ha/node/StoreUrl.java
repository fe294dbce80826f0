package io.cutpoint.ha.node;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * The shared snapshot store, written {@code s3://BUCKET/PREFIX}: the bucket (which must exist) and
 * the key prefix of every object of one cluster (may be empty).
 */
public record StoreUrl(String bucket, String prefix) {

  /**
   * Reads {@code s3://BUCKET[/PREFIX]}.
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  public static StoreUrl parse(String text) {
    String t = text.trim();
    URI uri;
    try {
      uri = new URI(t);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("'" + text + "' is not s3://BUCKET/PREFIX");
    }
    if (!"s3".equals(uri.getScheme())) {
      throw new IllegalArgumentException(
          "'" + text + "' is not s3://BUCKET/PREFIX (only S3-compatible stores are shared)");
    }
    String bucket = uri.getHost();
    if (bucket == null || bucket.isEmpty() || uri.getQuery() != null || uri.getPort() != -1) {
      throw new IllegalArgumentException("'" + text + "' names no bucket: s3://BUCKET/PREFIX");
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    String prefix = path.replaceAll("^/+", "").replaceAll("/+$", "");
    return new StoreUrl(bucket, prefix);
  }

  @Override
  public String toString() {
    return "s3://" + bucket + "/" + prefix;
  }
}
