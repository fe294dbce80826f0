package io.cutpoint.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class CutpointCommandTest {

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static void assertOneLine(String err) {
    assertThat(err).startsWith("cutpoint: ").endsWith("\n");
    assertThat(err.strip()).doesNotContain("\n");
  }

  @Test
  void helpAndVersionExitZero() {
    Cli.Result help = Cli.run("--help");
    assertThat(help.code()).isEqualTo(0);
    assertThat(help.out())
        .contains(
            "server",
            "snapshot",
            "list",
            "show",
            "rollback",
            "delete",
            "pin",
            "unpin",
            "cluster",
            "watch",
            "analyze",
            "demo");
    Cli.Result version = Cli.run("--version");
    assertThat(version.code()).isEqualTo(0);
    assertThat(version.out()).startsWith("cutpoint ");
  }

  @Test
  void everySubcommandHasHelp() {
    for (String sub :
        new String[] {
          "server",
          "snapshot",
          "list",
          "show",
          "rollback",
          "delete",
          "pin",
          "unpin",
          "cluster",
          "watch",
          "analyze",
          "demo"
        }) {
      Cli.Result r = Cli.run(sub, "--help");
      assertThat(r.code()).as(sub).isEqualTo(0);
      assertThat(r.out()).as(sub).startsWith("Usage: cutpoint " + sub);
    }
  }

  @Test
  void benchIsRegisteredExactlyWhenItsClassIsInTheBuild() {
    boolean present;
    try {
      Class.forName(CutpointCommand.BENCH_CLASS);
      present = true;
    } catch (ClassNotFoundException e) {
      present = false;
    }
    assertThat(CutpointCommand.commandLine().getSubcommands().containsKey("bench"))
        .isEqualTo(present);
    if (present) {
      assertThat(Cli.run("bench", "--help").code()).isZero();
    }
  }

  @Test
  void unknownFlagIsUsageErrorOnOneLine() {
    Cli.Result r = Cli.run("list", "--bogus");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertOneLine(r.err());
    assertThat(r.err()).contains("Unknown option: '--bogus'").contains("cutpoint list --help");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void missingCommandAndUnknownCommandAreUsageErrors() {
    Cli.Result none = Cli.run();
    assertThat(none.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(none.err())
        .as("cutpoint alone prints its usage")
        .startsWith("Usage: cutpoint")
        .contains("server", "snapshot", "Exit codes");
    assertThat(none.out()).isEmpty();
    Cli.Result unknown = Cli.run("snapshott");
    assertThat(unknown.code()).isEqualTo(ExitCodes.USAGE);
    assertOneLine(unknown.err());
    assertThat(unknown.err()).contains("did you mean: snapshot");
    Cli.Result flag = Cli.run("list", "--limt");
    assertThat(flag.code()).isEqualTo(ExitCodes.USAGE);
    assertOneLine(flag.err());
    assertThat(flag.err()).contains("did you mean: --limit");
  }

  @Test
  void badSnapshotIdsAreUsageErrors() {
    for (String bad : new String[] {"abc", "0", "-3", "1.5"}) {
      Cli.Result r = Cli.run("show", bad, "--server", "localhost:1");
      assertThat(r.code()).as(bad).isEqualTo(ExitCodes.USAGE);
      assertOneLine(r.err());
      assertThat(r.err()).as(bad).contains("snapshot id");
    }
    assertThat(Cli.run("rollback").code()).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void badServerAddressIsUsageError() {
    Cli.Result r = Cli.run("list", "--server", "nowhere");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err())
        .isEqualTo(
            "cutpoint: --server must be HOST:PORT with a port 1-65535, got 'nowhere' (see 'cutpoint list --help')\n");
  }

  @Test
  void unreachableServerIsAFailedOperationWithAClearLine() throws IOException {
    int port = closedPort();
    for (String[] args :
        new String[][] {
          {"list"},
          {"show", "3"},
          {"snapshot", "--wait"},
          {"cluster"},
          {"rollback", "2"},
          {"analyze", "2"},
          {"watch"},
          {"delete", "1"},
          {"pin", "1"}
        }) {
      String[] full =
          java.util.stream.Stream.concat(
                  java.util.Arrays.stream(args),
                  java.util.stream.Stream.of("--server", "127.0.0.1:" + port))
              .toArray(String[]::new);
      Cli.Result r = Cli.run(full);
      assertThat(r.code()).as(args[0]).isEqualTo(ExitCodes.FAILED);
      assertThat(r.err())
          .as(args[0])
          .isEqualTo(
              "cutpoint: cannot reach coordinator at 127.0.0.1:" + port + ": connection refused\n");
    }
  }

  @Test
  void serverRejectsBadSettingsAsUsageErrorNamingTheSource() {
    Cli.Result r = Cli.run("server", "--interval", "often", "--print-config");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err())
        .isEqualTo(
            "cutpoint: bad value for interval (flag --interval): 'often' is not a duration "
                + "(e.g. 250ms, 1.5s, 1m30s, 2h, PT10S)\n");
  }

  @Test
  void durationsThatWouldOverflowAreUsageErrorsAndHumanFormsAreRead() {
    Cli.Result huge = Cli.run("server", "--interval", "9999999999999999s", "--print-config");
    assertThat(huge.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(huge.err())
        .isEqualTo(
            "cutpoint: bad value for interval (flag --interval): "
                + "'9999999999999999s' is too long (at most about 292 years)\n");
    Cli.Result human =
        Cli.run(
            "server",
            "--interval",
            "1m30s",
            "--timeout",
            "PT1.5S",
            "--heartbeat-interval",
            "250ms",
            "--print-config");
    assertThat(human.code()).as(human.err()).isZero();
    assertThat(human.out())
        .containsPattern("interval\\s+1m30s\\s+# flag --interval")
        .containsPattern("timeout\\s+1.5s\\s+# flag --timeout")
        .containsPattern("heartbeat-interval\\s+250ms\\s+# flag")
        .doesNotContain("PT");
    Cli.Result demo = Cli.run("demo", "--interval", "9999999999999999s");
    assertThat(demo.code()).isEqualTo(ExitCodes.USAGE);
    assertOneLine(demo.err());
  }

  @Test
  void serverPrintConfigShowsFlagFileAndDefaultSources(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws IOException {
    java.nio.file.Path file = dir.resolve("cutpoint.properties");
    java.nio.file.Files.writeString(file, "# a comment\ninterval = 5s\nretain=7\n");
    Cli.Result r =
        Cli.run("server", "--config", file.toString(), "--retain", "2", "--print-config");
    assertThat(r.code()).isEqualTo(0);
    assertThat(r.out())
        .containsPattern(
            "interval\\s+5s\\s+# file " + java.util.regex.Pattern.quote(file.toString()));
    assertThat(r.out()).containsPattern("retain\\s+2\\s+# flag --retain");
    assertThat(r.out()).containsPattern("port\\s+7070\\s+# default");
  }

  @Test
  void missingConfigFileIsUsageError() {
    Cli.Result r =
        Cli.run("server", "--config", "/nonexistent/cutpoint.properties", "--print-config");
    assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err())
        .isEqualTo("cutpoint: config file /nonexistent/cutpoint.properties does not exist\n");
  }
}
