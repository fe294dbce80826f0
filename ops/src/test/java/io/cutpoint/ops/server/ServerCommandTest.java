package io.cutpoint.ops.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.ops.Cli;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.config.ConfigException;
import io.cutpoint.ops.config.ServerSettings;
import io.cutpoint.ops.config.Setting;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.rollback.RollbackPolicy;
import java.io.IOException;
import java.net.BindException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerCommandTest {

  @Test
  void settingsMapOntoTheCoordinatorConfig() {
    ServerSettings s =
        Settings.resolve(
            Map.of(
                Setting.PORT,
                "7001",
                Setting.INTERVAL,
                "2s",
                Setting.TIMEOUT,
                "9s",
                Setting.MIN_PAUSE,
                "100ms",
                Setting.MAX_CONCURRENT,
                "2",
                Setting.TOLERABLE_FAILURES,
                "4",
                Setting.RETAIN,
                "6",
                Setting.HEARTBEAT_INTERVAL,
                "300ms",
                Setting.HEARTBEAT_TIMEOUT,
                "2s",
                Setting.MAX_RECORDED_BYTES,
                "1MiB"),
            Map.of("CUTPOINT_DATA_DIR", "/d"));
    CoordinatorConfig c = ServerCommand.toConfig(s);
    assertThat(c)
        .isEqualTo(
            new CoordinatorConfig(
                7001,
                Path.of("/d"),
                Duration.ofSeconds(2),
                Duration.ofSeconds(9),
                Duration.ofMillis(100),
                2,
                4,
                6,
                Duration.ofMillis(300),
                Duration.ofSeconds(2),
                1 << 20));
  }

  @Test
  void rollbackPolicyAndDeadlineReachTheCoordinatorConfig() {
    ServerSettings s =
        Settings.resolve(
            Map.of(Setting.ROLLBACK_POLICY, "latest-complete"),
            Map.of("CUTPOINT_ROLLBACK_DEADLINE", "30s"));
    CoordinatorConfig c = ServerCommand.toConfig(s);
    assertThat(c.rollbackPolicy()).isEqualTo(RollbackPolicy.LATEST_COMPLETE);
    assertThat(c.rollbackDeadline()).isEqualTo(Duration.ofSeconds(30));
    assertThat(ServerCommand.describe(s))
        .contains("rollback-policy", "latest-complete", "env CUTPOINT_ROLLBACK_DEADLINE");

    ServerSettings defaults = Settings.resolve(Map.of(), Map.of());
    assertThat(ServerCommand.toConfig(defaults).rollbackPolicy()).isEqualTo(RollbackPolicy.NONE);
  }

  @Test
  void forgetLostAfterIsOffByDefaultAndReachesTheCoordinatorConfigFromEnvOrFlag() {
    ServerSettings defaults = Settings.resolve(Map.of(), Map.of());
    assertThat(ServerCommand.toConfig(defaults).forgetLostAfter()).isZero();
    ServerSettings env = Settings.resolve(Map.of(), Map.of("CUTPOINT_FORGET_LOST_AFTER", "10m"));
    assertThat(ServerCommand.toConfig(env).forgetLostAfter()).isEqualTo(Duration.ofMinutes(10));
    assertThat(ServerCommand.describe(env))
        .contains("forget-lost-after", "env CUTPOINT_FORGET_LOST_AFTER");
    ServerSettings flag = Settings.resolve(Map.of(Setting.FORGET_LOST_AFTER, "30s"), Map.of());
    assertThat(ServerCommand.toConfig(flag).forgetLostAfter()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void anUnknownRollbackPolicyNamesTheSettingAndTheChoices() {
    assertThatThrownBy(
            () -> Settings.resolve(Map.of(Setting.ROLLBACK_POLICY, "sometimes"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("rollback-policy")
        .hasMessageContaining("none, latest-complete");
  }

  @Test
  void startupFailuresAreShortened() {
    assertThat(
            ServerCommand.causeText(
                new IOException(
                    "bind failed",
                    new BindException("bind(..) failed with error(-98): Address already in use"))))
        .isEqualTo("address already in use");
    assertThat(
            ServerCommand.causeText(
                new RuntimeException("While lock file: /d/LOCK: Resource temporarily unavailable")))
        .isEqualTo(
            "it is in use by another process (While lock file: /d/LOCK: Resource temporarily unavailable)");
  }

  @Test
  void aTakenPortIsAFailedOperationWithOneLine(@TempDir Path dir) throws IOException {
    try (ServerSocket taken = new ServerSocket(0)) {
      Cli.Result r =
          Cli.run(
              "server",
              "--port",
              String.valueOf(taken.getLocalPort()),
              "--metrics-port",
              "-1",
              "--data-dir",
              dir.toString());
      assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
      assertThat(r.err())
          .isEqualTo(
              "cutpoint: cannot start coordinator on port "
                  + taken.getLocalPort()
                  + ": address already in use\n");
    }
  }
}
