package io.cutpoint.ops.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.storage.ZooKeeperForTests;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LocalSharedStoreTest {

  @Test
  void itsZooKeeperLeavesNoFileInTheTemporaryDirectoryOnceClosed() throws Exception {
    Set<Path> before = ZooKeeperForTests.filesLeftInTmp();
    try (LocalSharedStore store = LocalSharedStore.start()) {
      assertThat(store.zookeeper().checkExists().forPath("/")).isNotNull();
      assertThat(store.s3().listBuckets().buckets())
          .anyMatch(b -> b.name().equals(LocalSharedStore.BUCKET));
    }
    assertThat(ZooKeeperForTests.filesLeftInTmp())
        .as("files ZooKeeper wrote into /tmp")
        .isSubsetOf(before);
  }
}
