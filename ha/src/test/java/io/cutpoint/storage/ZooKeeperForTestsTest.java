package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.ha.node.HaCoordinator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ZooKeeperForTestsTest {

  @Test
  void aServerAndAnEnsembleLeaveNoFileInTheTemporaryDirectoryOnceClosed() throws Exception {
    Set<Path> before = ZooKeeperForTests.filesLeftInTmp();
    try (TestingServer server = ZooKeeperForTests.server()) {
      answers(server.getConnectString());
    }
    try (TestingCluster cluster = ZooKeeperForTests.cluster(3, -1)) {
      cluster.start();
      answers(cluster.getConnectString());
    }
    assertThat(ZooKeeperForTests.filesLeftInTmp())
        .as("files ZooKeeper wrote into /tmp")
        .isSubsetOf(before);
  }

  @Test
  void anEnsemblesServersHaveNinePortsAllDifferent(@TempDir Path root) throws Exception {
    for (int round = 0; round < 20; round++) {
      List<Integer> ports = new ArrayList<>();
      for (InstanceSpec s : ZooKeeperForTests.ensemble(root.resolve("r" + round), 3, -1)) {
        ports.addAll(List.of(s.getPort(), s.getElectionPort(), s.getQuorumPort()));
      }
      assertThat(ports).hasSize(9).doesNotHaveDuplicates();
    }
  }

  private static void answers(String connectString) throws Exception {
    try (CuratorFramework zk = HaCoordinator.zookeeper(connectString)) {
      assertThat(zk.checkExists().forPath("/")).isNotNull();
    }
  }
}
