package io.cutpoint.ops;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** The version the build wrote into {@code cutpoint-version.properties}. */
public final class VersionProvider implements CommandLine.IVersionProvider {

  /** The project version, or {@code unknown} when run from classes without the build's resource. */
  public static String version() {
    try (InputStream in =
        VersionProvider.class.getResourceAsStream("/cutpoint-version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  @Override
  public String[] getVersion() {
    return new String[] {
      "cutpoint " + version(),
      "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
    };
  }
}
