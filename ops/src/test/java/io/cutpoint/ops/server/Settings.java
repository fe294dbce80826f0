package io.cutpoint.ops.server;

import io.cutpoint.ops.config.ConfigException;
import io.cutpoint.ops.config.ServerSettings;
import io.cutpoint.ops.config.Setting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;

/**
 * Resolves server settings the way {@code cutpoint server} does, from flags, environment and file.
 */
final class Settings {

  private Settings() {}

  static ServerSettings resolve(Map<Setting, String> flags, Map<String, String> env) {
    return resolve(env, args(flags).toArray(String[]::new));
  }

  /** {@code cutpoint server ARGS} parsed with the environment {@code env}; a bad setting throws. */
  static ServerSettings resolve(Map<String, String> env, String... args) {
    CommandLine server = new CommandLine(new ServerCommand());
    ServerCommand.addSettingOptions(server, env);
    try {
      server.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      throw e.getCause() instanceof ConfigException c ? c : e;
    }
    return server.<ServerCommand>getCommand().settings();
  }

  /** With {@code file} written to {@code configFile} and given as {@code --config}. */
  static ServerSettings resolve(
      Map<Setting, String> flags, Map<String, String> env, Properties file, Path configFile) {
    try (Writer w = Files.newBufferedWriter(configFile)) {
      file.store(w, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> args = args(flags);
    args.add("--config");
    args.add(configFile.toString());
    return resolve(env, args.toArray(String[]::new));
  }

  private static List<String> args(Map<Setting, String> flags) {
    List<String> args = new ArrayList<>();
    flags.forEach(
        (s, v) -> {
          args.add(s.flag());
          args.add(v);
        });
    return args;
  }
}
