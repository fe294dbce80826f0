package io.cutpoint.playground;

import java.util.List;

/** Where the playground's static files are on the classpath, and which they are. */
public final class PlaygroundFiles {

  /** Classpath folder, under the console's {@code cutpoint-web}: served at {@code /play/}. */
  public static final String FOLDER = "cutpoint-web/play";

  /** Every file of the page; {@code engine.js} is the TeaVM output. */
  public static final List<String> FILES =
      List.of("index.html", "play.css", "play.js", "engine.js");

  private PlaygroundFiles() {}
}
