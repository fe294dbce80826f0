package io.cutpoint.ops.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class LocalSharedStoreTest {

  @Test
  void itsZooKeeperLeavesNoFileInTheTemporaryDirectoryOnceClosed() throws Exception {
    Set<Path> before = zooKeeperFiles();
    try (LocalSharedStore store = LocalSharedStore.start()) {
      assertThat(store.zookeeper().checkExists().forPath("/")).isNotNull();
      assertThat(store.s3().listBuckets().buckets())
          .anyMatch(b -> b.name().equals(LocalSharedStore.BUCKET));
    }
    assertThat(zooKeeperFiles()).as("files ZooKeeper wrote into /tmp").isSubsetOf(before);
  }

  /** What ZooKeeper's embedded server writes next to a data directory. */
  static Set<Path> zooKeeperFiles() throws IOException {
    try (Stream<Path> all = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return all.filter(p -> p.getFileName().toString().startsWith("zookeeper.configuration"))
          .collect(Collectors.toSet());
    }
  }
}
