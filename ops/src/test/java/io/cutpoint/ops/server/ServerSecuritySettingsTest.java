package io.cutpoint.ops.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.ops.Cli;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.config.ConfigException;
import io.cutpoint.ops.config.Setting;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.security.TlsFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin token file and TLS files of {@code cutpoint server}. */
class ServerSecuritySettingsTest {

  private static final String TOKEN = "sekr1t-t0ken";

  @TempDir Path dir;

  @Test
  void printConfigShowsTheTokenFileButNeverTheToken() throws Exception {
    Path file = Files.writeString(dir.resolve("admin.token"), TOKEN + "\n");
    Cli.Result r = Cli.run("server", "--print-config", "--admin-token-file", file.toString());
    assertThat(r.code()).isEqualTo(ExitCodes.OK);
    assertThat(r.out())
        .containsPattern(
            "admin-token-file\\s+"
                + java.util.regex.Pattern.quote(file.toString())
                + "\\s+# flag --admin-token-file");
    assertThat(r.out()).containsPattern("tls-cert\\s+none\\s+# default");
    assertThat(r.out()).doesNotContain(TOKEN);
  }

  @Test
  void theTokenFileFromTheEnvironmentBecomesTheCoordinatorsToken() throws Exception {
    Path file = Files.writeString(dir.resolve("admin.token"), TOKEN + "\n");
    CoordinatorConfig c =
        ServerCommand.toConfig(
            Settings.resolve(Map.of(), Map.of("CUTPOINT_ADMIN_TOKEN_FILE", file.toString())));
    assertThat(c.adminToken().matches(TOKEN)).isTrue();
    assertThat(c.tls()).isNull();
    CoordinatorConfig open = ServerCommand.toConfig(Settings.resolve(Map.of(), Map.of()));
    assertThat(open.adminToken()).isNull();
  }

  @Test
  void tlsFilesReachTheCoordinatorConfigAndGoTogether() {
    Properties file = new Properties();
    file.setProperty("tls-cert", "/etc/c.pem");
    file.setProperty("tls-key", "/etc/c.key");
    CoordinatorConfig c =
        ServerCommand.toConfig(
            Settings.resolve(
                Map.of(Setting.TLS_CLIENT_CA, "/etc/ca.pem"),
                Map.of(),
                file,
                dir.resolve("cutpoint.properties")));
    assertThat(c.tls())
        .isEqualTo(
            new TlsFiles(Path.of("/etc/c.pem"), Path.of("/etc/c.key"), Path.of("/etc/ca.pem")));
    assertThatThrownBy(() -> Settings.resolve(Map.of(Setting.TLS_CERT, "/etc/c.pem"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("tls-cert and tls-key go together (flag --tls-cert)");
    assertThatThrownBy(
            () -> Settings.resolve(Map.of(Setting.TLS_CLIENT_CA, "/etc/ca.pem"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("tls-client-ca needs tls-cert and tls-key");
  }

  @Test
  void anEmptyTokenFileIsAUsageErrorInOneLine() throws Exception {
    Path file = Files.writeString(dir.resolve("admin.token"), "  \n");
    Cli.Result r =
        Cli.run(
            "server",
            "--port",
            "0",
            "--metrics-port",
            "-1",
            "--data-dir",
            dir.resolve("data").toString(),
            "--admin-token-file",
            file.toString());
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().lines())
        .containsExactly(
            "cutpoint: unusable admin-token-file "
                + file
                + " (flag --admin-token-file): the admin token is empty");
  }

  @Test
  void aHostThatDoesNotResolveIsAUsageErrorBeforeAnythingStarts() {
    for (String flag : new String[] {"--host", "--metrics-host"}) {
      Cli.Result r =
          Cli.run(
              "server",
              "--port",
              "0",
              "--metrics-port",
              "0",
              "--data-dir",
              dir.resolve("data").toString(),
              flag,
              "no-such-host.invalid");
      assertThat(r.code()).as(flag).isEqualTo(ExitCodes.USAGE);
      assertThat(r.err())
          .startsWith("cutpoint: " + flag + " 'no-such-host.invalid' does not resolve");
      assertThat(dir.resolve("data")).as("nothing started").doesNotExist();
    }
  }

  @Test
  void aMissingTlsKeyFailsTheStartNamingTheFile() throws Exception {
    Path cert = Files.writeString(dir.resolve("server.pem"), "not a certificate");
    Path key = dir.resolve("missing.key");
    Cli.Result r =
        Cli.run(
            "server",
            "--port",
            "0",
            "--metrics-port",
            "-1",
            "--data-dir",
            dir.resolve("data").toString(),
            "--tls-cert",
            cert.toString(),
            "--tls-key",
            key.toString());
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.err().lines())
        .containsExactly(
            "cutpoint: TLS private key file " + key + " does not exist or is not readable");
  }
}
