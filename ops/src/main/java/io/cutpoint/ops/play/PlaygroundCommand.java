package io.cutpoint.ops.play;

import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.playground.PlaygroundFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cutpoint playground --out DIR}: writes the playground (the page served at {@code /play} by
 * the coordinator) as a static folder that works opened from disk.
 */
@Command(
    name = "playground",
    mixinStandardHelpOptions = true,
    description = {
      "Write the playground (the page the coordinator serves at /play) to a folder.",
      "Open DIR/index.html in a browser: it runs from disk, with nothing to install."
    })
public final class PlaygroundCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      description =
          "Folder to write to (created if missing; the playground's files in it are replaced).")
  Path out;

  @Override
  public Integer call() {
    if (Files.exists(out) && !Files.isDirectory(out)) {
      throw new ParameterException(spec.commandLine(), "--out " + out + " is a file, not a folder");
    }
    try {
      Files.createDirectories(out);
      for (String name : PlaygroundFiles.FILES) {
        try (InputStream in =
            PlaygroundCommand.class
                .getClassLoader()
                .getResourceAsStream(PlaygroundFiles.FOLDER + "/" + name)) {
          if (in == null) {
            throw CliFailure.failed(
                "this build has no playground file "
                    + name
                    + " (was the playground module built?)");
          }
          Files.copy(in, out.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      throw CliFailure.failed("cannot write the playground to " + out + ": " + e.getMessage());
    }
    PrintWriter w = spec.commandLine().getOut();
    w.println(
        "wrote the playground to "
            + out.toAbsolutePath().normalize()
            + "; open "
            + out.toAbsolutePath().normalize().resolve("index.html").toUri());
    w.flush();
    return ExitCodes.OK;
  }
}
