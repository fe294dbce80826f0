package io.cutpoint.ops.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.ha.node.HaSettings;
import io.cutpoint.ha.node.StoreUrl;
import io.cutpoint.ha.node.ZooKeeperAddress;
import io.cutpoint.ops.Cli;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.config.ConfigException;
import io.cutpoint.ops.config.ServerSettings;
import io.cutpoint.ops.config.Setting;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settings of a highly available coordinator: read, checked together, refused alone. */
class HaSettingsTest {

  @Test
  void withNoHaSettingTheCoordinatorIsAlone() {
    ServerSettings s = Settings.resolve(Map.of(), Map.of());
    assertThat(s.ha()).isEmpty();
    assertThat(s.zookeeper()).isNull();
    assertThat(s.store()).isNull();
  }

  @Test
  void flagsEnvironmentAndFileAllReachTheHaSettings(@TempDir Path dir) {
    java.util.Properties file = new java.util.Properties();
    file.setProperty("s3-region", "eu-west-1");
    ServerSettings s =
        Settings.resolve(
            Map.of(
                Setting.ZOOKEEPER,
                "zk1:2181,ZK2:2182/cutpoint/prod",
                Setting.S3_PATH_STYLE,
                "true",
                Setting.ZOOKEEPER_SESSION_TIMEOUT,
                "4s"),
            Map.of(
                "CUTPOINT_STORE", "s3://snaps/prod/cuts/",
                "CUTPOINT_S3_ENDPOINT", "http://127.0.0.1:9000",
                "CUTPOINT_ADVERTISE", "coord-1.example:7070"),
            file,
            dir.resolve("c.properties"));
    HaSettings ha = s.ha().orElseThrow();
    assertThat(ha.zookeeper())
        .isEqualTo(new ZooKeeperAddress("zk1:2181,zk2:2182", "/cutpoint/prod"));
    assertThat(ha.store()).isEqualTo(new StoreUrl("snaps", "prod/cuts"));
    assertThat(ha.s3Endpoint()).isEqualTo(URI.create("http://127.0.0.1:9000"));
    assertThat(ha.s3Region()).isEqualTo("eu-west-1");
    assertThat(ha.s3PathStyle()).isTrue();
    assertThat(ha.advertise()).isEqualTo("coord-1.example:7070");
    assertThat(ha.sessionTimeout()).isEqualTo(java.time.Duration.ofSeconds(4));
    assertThat(ServerCommand.describe(s))
        .contains("zk1:2181,zk2:2182/cutpoint/prod")
        .contains("s3://snaps/prod/cuts");
  }

  @Test
  void zookeeperWithoutAStoreIsRefusedAndSaysWhy() {
    assertThatThrownBy(
            () -> Settings.resolve(Map.of(Setting.ZOOKEEPER, "127.0.0.1:2181/cutpoint"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("zookeeper (flag --zookeeper) needs store s3://BUCKET/PREFIX")
        .hasMessageContaining("not shared");
  }

  @Test
  void aStoreWithoutZookeeperIsRefusedAndSaysWhy() {
    assertThatThrownBy(() -> Settings.resolve(Map.of(), Map.of("CUTPOINT_STORE", "s3://b/p")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("store (env CUTPOINT_STORE) needs zookeeper")
        .hasMessageContaining("fences");
  }

  @Test
  void anEndpointWithoutZookeeperIsRefused() {
    assertThatThrownBy(
            () -> Settings.resolve(Map.of(Setting.S3_ENDPOINT, "http://127.0.0.1:9000"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("s3-endpoint (flag --s3-endpoint) is used only with zookeeper");
  }

  @Test
  void badValuesNameTheSettingAndTheForm() {
    assertThatThrownBy(() -> Settings.resolve(Map.of(Setting.ZOOKEEPER, "zk1:2181"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("bad value for zookeeper")
        .hasMessageContaining("HOST:PORT[,HOST:PORT...]/PATH");
    assertThatThrownBy(() -> Settings.resolve(Map.of(Setting.ZOOKEEPER, "zk1/c"), Map.of()))
        .hasMessageContaining("'zk1' is not HOST:PORT");
    assertThatThrownBy(() -> Settings.resolve(Map.of(Setting.STORE, "file:///tmp/x"), Map.of()))
        .hasMessageContaining("bad value for store")
        .hasMessageContaining("only S3-compatible stores are shared");
    assertThatThrownBy(
            () -> Settings.resolve(Map.of(Setting.S3_ENDPOINT, "127.0.0.1:9000"), Map.of()))
        .hasMessageContaining("is not an http:// or https:// URL");
    assertThatThrownBy(() -> Settings.resolve(Map.of(Setting.S3_PATH_STYLE, "yes"), Map.of()))
        .hasMessageContaining("is not true or false");
  }

  @Test
  void theCommandRefusesHalfAnHaSetupWithExitCode2(@TempDir Path dir) {
    Cli.Result r =
        Cli.run(
            "server",
            "--zookeeper",
            "127.0.0.1:2181/cutpoint",
            "--metrics-port",
            "-1",
            "--data-dir",
            dir.toString());
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE).isEqualTo(2);
    assertThat(r.err()).startsWith("cutpoint: zookeeper (flag --zookeeper) needs store");
  }
}
