package io.cutpoint.ops.demo;

import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** How the demo shows what happens: JSON lines, plain lines, or a refreshing terminal view. */
public interface DemoOutput extends AutoCloseable {

  void event(DemoEvent e);

  /** The closing summary: text for people, an object for machines. */
  void summary(String text, Json.Obj json);

  @Override
  default void close() {}

  /** One JSON object per event, then the summary object. */
  static DemoOutput json(PrintWriter out) {
    return new DemoOutput() {
      @Override
      public synchronized void event(DemoEvent e) {
        out.println(e.json());
        out.flush();
      }

      @Override
      public synchronized void summary(String text, Json.Obj json) {
        out.println(json);
        out.flush();
      }
    };
  }

  /** One line per event (for logs and pipes). */
  static DemoOutput lines(PrintWriter out) {
    return new DemoOutput() {
      @Override
      public synchronized void event(DemoEvent e) {
        out.println(line(e));
        out.flush();
      }

      @Override
      public synchronized void summary(String text, Json.Obj json) {
        out.print(text);
        out.flush();
      }
    };
  }

  /** A compact view redrawn in place a few times a second: status lines and the latest events. */
  static DemoOutput live(PrintWriter out, Supplier<List<String>> status) {
    return new LiveView(out, status, TerminalSize::detect);
  }

  /** A plain line for an event. */
  static String line(DemoEvent e) {
    return Human.clock(e.atMs())
        + "  "
        + String.format("%-9s", e.type())
        + " "
        + (e.bad() ? "!! " : "")
        + e.text();
  }

  /** The refreshing terminal view. */
  final class LiveView implements DemoOutput {
    /** Events kept for the view: more than any terminal shows. */
    private static final int KEEP = 500;

    /** How often the terminal's size is asked again (it may be resized), in redraws. */
    private static final int SIZE_EVERY = 8;

    private final PrintWriter out;
    private final Supplier<List<String>> status;
    private final Supplier<TerminalSize> terminal;
    private TerminalSize size = TerminalSize.DEFAULT;
    private int draws;
    private final Deque<DemoEvent> recent = new ArrayDeque<>();
    private final List<DemoEvent> bad = new ArrayList<>();
    private final ScheduledExecutorService timer;
    private int drawnLines;

    LiveView(PrintWriter out, Supplier<List<String>> status, Supplier<TerminalSize> terminal) {
      this.out = out;
      this.status = status;
      this.terminal = terminal;
      this.timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "cutpoint-demo-view");
                t.setDaemon(true);
                return t;
              });
      timer.scheduleAtFixedRate(this::draw, 0, 250, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void event(DemoEvent e) {
      recent.addLast(e);
      while (recent.size() > KEEP) {
        recent.removeFirst();
      }
      if (e.bad()) {
        bad.add(e);
      }
    }

    private synchronized void draw() {
      if (draws++ % SIZE_EVERY == 0) {
        size = terminal.get();
      }
      List<String> events = new ArrayList<>();
      for (DemoEvent e : recent) {
        events.add(line(e));
      }
      List<String> lines = LiveLayout.lines(status.get(), events, size);
      StringBuilder b = new StringBuilder();
      if (drawnLines > 0) {
        b.append("\033[").append(drawnLines).append('A');
      }
      b.append("\033[J");
      for (String l : lines) {
        b.append(l).append("\033[K\n");
      }
      out.print(b);
      out.flush();
      drawnLines = lines.size();
    }

    @Override
    public void summary(String text, Json.Obj json) {
      close();
      synchronized (this) {
        draw();
        for (DemoEvent e : bad) {
          out.println(line(e));
        }
        out.println();
        out.print(text);
        out.flush();
      }
    }

    @Override
    public void close() {
      timer.shutdownNow();
      try {
        timer.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
