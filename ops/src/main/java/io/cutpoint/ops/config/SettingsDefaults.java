package io.cutpoint.ops.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Picocli's value for a {@link Setting} flag not given on the command line: its {@code CUTPOINT_*}
 * environment variable, else its key in the config file, else its default. Picocli asks only after
 * parsing, so {@code --config} is known by then. Records where each value came from, for {@code
 * --print-config} and for messages.
 */
public final class SettingsDefaults implements IDefaultValueProvider {

  private final Map<String, String> env;
  private final Supplier<Path> configFile;
  private final Map<Setting, String> sources = new EnumMap<>(Setting.class);
  private Map<Setting, String> fromFile;

  /**
   * @param configFile the {@code --config} file, read when first needed; null = none
   */
  public SettingsDefaults(Map<String, String> env, Supplier<Path> configFile) {
    this.env = env;
    this.configFile = configFile;
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    Setting s =
        arg instanceof OptionSpec o
            ? Setting.byKey(o.longestName().substring(2)).orElse(null)
            : null;
    if (s == null) {
      return null;
    }
    String fromEnv = env.get(s.envVar());
    if (fromEnv != null && !fromEnv.isBlank()) {
      sources.put(s, "env " + s.envVar());
      return fromEnv;
    }
    if (file().containsKey(s)) {
      sources.put(s, "file " + configFile.get());
      return file().get(s);
    }
    sources.put(s, "default");
    return s.defaultValue().isEmpty() ? null : s.defaultValue();
  }

  /** Where the value of {@code s} came from: its env, file or default, else its flag. */
  public String source(Setting s) {
    return sources.getOrDefault(s, "flag " + s.flag());
  }

  private Map<Setting, String> file() {
    if (fromFile == null) {
      fromFile = read(configFile.get());
    }
    return fromFile;
  }

  /**
   * A config file's values: Java properties, i.e. {@code key=value} lines and {@code #} comments.
   */
  private static Map<Setting, String> read(Path file) {
    Map<Setting, String> values = new EnumMap<>(Setting.class);
    if (file == null) {
      return values;
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (NoSuchFileException e) {
      throw new ConfigException("config file " + file + " does not exist");
    } catch (IOException | IllegalArgumentException e) {
      throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
    }
    for (String key : p.stringPropertyNames()) {
      Setting s =
          Setting.byKey(key)
              .orElseThrow(
                  () ->
                      new ConfigException(
                          "unknown setting '"
                              + key
                              + "' in "
                              + file
                              + " (known: "
                              + Setting.keys()
                              + ")"));
      values.put(s, p.getProperty(key).trim());
    }
    return values;
  }
}
