package io.cutpoint.ops.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.ops.config.ConfigException;
import io.cutpoint.ops.config.ServerSettings;
import io.cutpoint.ops.config.Setting;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flag over environment over config file over default, through the server command's parser. */
class ServerSettingsTest {

  @TempDir Path dir;

  private static Properties file(String... kv) {
    Properties p = new Properties();
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  private ServerSettings resolve(
      Map<Setting, String> flags, Map<String, String> env, Properties file) {
    return Settings.resolve(flags, env, file, configFile());
  }

  private Path configFile() {
    return dir.resolve("test.properties");
  }

  @Test
  void withNothingGivenEverySettingHasItsDefault() {
    ServerSettings s = resolve(Map.of(), Map.of(), new Properties());
    assertThat(s.port()).isEqualTo(7070);
    assertThat(s.metricsPort()).isEqualTo(9464);
    assertThat(s.dataDir()).isEqualTo(Path.of("cutpoint-data"));
    assertThat(s.interval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(s.maxRecordedBytes()).isEqualTo(256L << 20);
    assertThat(s.sources()).allSatisfy((k, v) -> assertThat(v).isEqualTo("default"));
  }

  @Test
  void flagWinsOverEnvWhichWinsOverFileWhichWinsOverDefault() {
    Properties file = file("port", "1111", "interval", "3s", "retain", "9");
    Map<String, String> env = Map.of("CUTPOINT_PORT", "2222", "CUTPOINT_INTERVAL", "4s");
    Map<Setting, String> flags = Map.of(Setting.PORT, "3333");

    ServerSettings s = resolve(flags, env, file);

    assertThat(s.port()).isEqualTo(3333);
    assertThat(s.sources().get(Setting.PORT)).isEqualTo("flag --port");
    assertThat(s.interval()).isEqualTo(Duration.ofSeconds(4));
    assertThat(s.sources().get(Setting.INTERVAL)).isEqualTo("env CUTPOINT_INTERVAL");
    assertThat(s.retain()).isEqualTo(9);
    assertThat(s.sources().get(Setting.RETAIN)).isEqualTo("file " + configFile());
    assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(s.sources().get(Setting.TIMEOUT)).isEqualTo("default");
  }

  @Test
  void eachLayerAloneOverridesTheDefault() {
    assertThat(resolve(Map.of(Setting.RETAIN, "2"), Map.of(), new Properties()).retain())
        .isEqualTo(2);
    assertThat(resolve(Map.of(), Map.of("CUTPOINT_RETAIN", "3"), new Properties()).retain())
        .isEqualTo(3);
    assertThat(resolve(Map.of(), Map.of(), file("retain", "4")).retain()).isEqualTo(4);
  }

  @Test
  void blankEnvironmentVariableCountsAsUnset() {
    ServerSettings s = resolve(Map.of(), Map.of("CUTPOINT_PORT", " "), file("port", "1234"));
    assertThat(s.port()).isEqualTo(1234);
  }

  @Test
  void environmentVariablesOfOtherProgramsAndCommandsAreIgnored() {
    ServerSettings s =
        resolve(Map.of(), Map.of("CUTPOINT_SERVER", "h:1", "PORT", "1"), new Properties());
    assertThat(s.port()).isEqualTo(7070);
  }

  @Test
  void fileKeysMayUseDashesUnderscoresOrDots() {
    ServerSettings s =
        resolve(
            Map.of(),
            Map.of(),
            file("data_dir", "/d", "heartbeat.interval", "2s", "max-recorded-bytes", "1KiB"));
    assertThat(s.dataDir()).isEqualTo(Path.of("/d"));
    assertThat(s.heartbeatInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.maxRecordedBytes()).isEqualTo(1024);
  }

  @Test
  void unknownFileKeyIsAnErrorNamingTheKeyAndTheFile() {
    assertThatThrownBy(() -> resolve(Map.of(), Map.of(), file("intervall", "3s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown setting 'intervall' in " + configFile());
  }

  @Test
  void badValueNamesTheSettingAndWhereItCameFrom() {
    assertThatThrownBy(
            () -> resolve(Map.of(), Map.of("CUTPOINT_INTERVAL", "soon"), new Properties()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "bad value for interval (env CUTPOINT_INTERVAL): 'soon' is not a duration (e.g. 250ms, 1.5s, 1m30s, 2h, PT10S)");
    assertThatThrownBy(() -> resolve(Map.of(Setting.PORT, "70000"), Map.of(), new Properties()))
        .hasMessage("bad value for port (flag --port): '70000' is out of range 0..65535");
    assertThatThrownBy(() -> resolve(Map.of(), Map.of(), file("retain", "0")))
        .hasMessageContaining("retain (file " + configFile() + ")");
  }

  @Test
  void aBadValueInALowerLayerIsHarmlessWhenAHigherLayerOverridesIt() {
    ServerSettings s = resolve(Map.of(Setting.INTERVAL, "1s"), Map.of(), file("interval", "never"));
    assertThat(s.interval()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void heartbeatTimeoutMustExceedTheInterval() {
    assertThatThrownBy(
            () -> resolve(Map.of(Setting.HEARTBEAT_TIMEOUT, "1s"), Map.of(), new Properties()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("heartbeat-timeout (1s) must be longer than heartbeat-interval (1s)");
  }

  @Test
  void metricsCanBeSwitchedOff() {
    assertThat(resolve(Map.of(Setting.METRICS_PORT, "-1"), Map.of(), new Properties()).metricsOff())
        .isTrue();
    assertThat(resolve(Map.of(), Map.of(), new Properties()).metricsOff()).isFalse();
  }

  @Test
  void zeroIntervalMeansNoPeriodicSnapshots() {
    assertThat(resolve(Map.of(Setting.INTERVAL, "0"), Map.of(), new Properties()).interval())
        .isZero();
  }

  @Test
  void everySettingHasAValueAndPrintConfigShowsIt() {
    ServerSettings s = resolve(Map.of(Setting.RETAIN, "3"), Map.of(), new Properties());
    assertThat(s.value(Setting.RETAIN)).isEqualTo(3);
    assertThat(s.value(Setting.INTERVAL)).isEqualTo(s.interval());
    assertThat(ServerCommand.describe(s))
        .contains("retain               3                      # flag --retain")
        .contains("tls-cert             none                   # default");
    assertThat(ServerCommand.describe(s).lines()).hasSize(Setting.values().length);
  }
}
