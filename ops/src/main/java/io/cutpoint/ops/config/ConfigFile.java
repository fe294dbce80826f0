package io.cutpoint.ops.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;

/** Reads a config file: Java properties, i.e. {@code key=value} lines and {@code #} comments. */
public final class ConfigFile {

  private ConfigFile() {}

  /** The file's properties; an empty set when {@code file} is null. */
  public static Properties load(Path file) {
    Properties p = new Properties();
    if (file == null) {
      return p;
    }
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
      return p;
    } catch (NoSuchFileException e) {
      throw new ConfigException("config file " + file + " does not exist");
    } catch (IOException | IllegalArgumentException e) {
      throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
    }
  }
}
