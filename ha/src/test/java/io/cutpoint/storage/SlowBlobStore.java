package io.cutpoint.storage;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.options.GetOptions;
import org.jclouds.blobstore.options.PutOptions;
import org.jclouds.blobstore.util.ForwardingBlobStore;

/**
 * A blob store that answers reads and writes of objects a fixed {@code latency} late, as a distant
 * or overloaded object store would. The delay is the point of this class: it stands for time spent
 * on the network, not for waiting on a condition.
 */
final class SlowBlobStore extends ForwardingBlobStore {
  volatile Duration latency = Duration.ZERO;

  SlowBlobStore(BlobStore delegate) {
    super(delegate);
  }

  private void lag() {
    long ms = latency.toMillis();
    if (ms > 0) {
      try {
        TimeUnit.MILLISECONDS.sleep(ms);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public String putBlob(String container, Blob blob) {
    lag();
    return super.putBlob(container, blob);
  }

  @Override
  public String putBlob(String container, Blob blob, PutOptions options) {
    lag();
    return super.putBlob(container, blob, options);
  }

  @Override
  public Blob getBlob(String container, String name) {
    lag();
    return super.getBlob(container, name);
  }

  @Override
  public Blob getBlob(String container, String name, GetOptions options) {
    lag();
    return super.getBlob(container, name, options);
  }
}
