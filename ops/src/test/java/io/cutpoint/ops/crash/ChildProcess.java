package io.cutpoint.ops.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * A child JVM ({@code java -cp <this test's classpath> <main> args}) that a {@link Supervisor}
 * starts again with the same arguments when it dies. Its stdout and stderr are read line by line:
 * every line goes to the sink and to a short tail kept for failure reports. The high-availability
 * failure tests ({@code io.cutpoint.ops.ha}) start their coordinators with it too.
 *
 * <p>Its {@code java.io.tmpdir} is {@code tmpDir}, a directory of the test's own temporary
 * directory: a child killed with -9 runs no exit hook, so what it extracted there (RocksDB's native
 * library, 17 MB a start) would otherwise stay in the machine's /tmp.
 */
public final class ChildProcess {

  private static final int TAIL = 60;

  final String name;
  private final List<String> command;
  private final Map<String, String> env;
  private final BiConsumer<String, String> sink;
  private final Deque<String> tail = new ArrayDeque<>();
  private Process process;
  private int starts;

  ChildProcess(
      String name, Class<?> main, List<String> args, Path tmpDir, BiConsumer<String, String> sink) {
    this(name, main, args, Map.of(), tmpDir, sink);
  }

  /** As above, with {@code env} added to the child's environment. */
  public ChildProcess(
      String name,
      Class<?> main,
      List<String> args,
      Map<String, String> env,
      Path tmpDir,
      BiConsumer<String, String> sink) {
    this.name = name;
    this.env = Map.copyOf(env);
    this.sink = sink;
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx192m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Xshare:auto");
    cmd.add("-Djava.io.tmpdir=" + createDirectories(tmpDir));
    cmd.add("-cp");
    cmd.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    cmd.add(main.getName());
    cmd.addAll(args);
    this.command = List.copyOf(cmd);
  }

  private static Path createDirectories(Path dir) {
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public synchronized void start() {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(env);
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + name, e);
    }
    starts++;
    int incarnation = starts;
    Process p = process;
    Thread reader =
        new Thread(() -> read(p, incarnation), "crash-child-" + name + "-" + incarnation);
    reader.setDaemon(true);
    reader.start();
  }

  private void read(Process p, int incarnation) {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        synchronized (tail) {
          tail.addLast("#" + incarnation + " " + line);
          if (tail.size() > TAIL) {
            tail.removeFirst();
          }
        }
        sink.accept(name, line);
      }
    } catch (IOException e) {
      // the process died
    }
  }

  public synchronized Process process() {
    return process;
  }

  public synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  synchronized int starts() {
    return starts;
  }

  /** kill -9, and waits until it is gone. */
  public void kill() {
    Process p = process();
    if (p == null) {
      return;
    }
    p.destroyForcibly();
    try {
      p.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGTERM, and waits until it is gone; kill -9 if it has not stopped within the timeout. */
  public void terminate(long timeoutSeconds) {
    Process p = process();
    if (p == null) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Sends a line to its stdin; false when it is not running. */
  public boolean send(String line) {
    Process p = process();
    if (p == null || !p.isAlive()) {
      return false;
    }
    try {
      OutputStream in = p.getOutputStream();
      synchronized (this) {
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Asks it to stop ({@code STOP}, then end of stdin) and waits; kills it if it does not. */
  public void stop(long timeoutSeconds) {
    Process p = process();
    if (p == null) {
      return;
    }
    send("STOP");
    try {
      p.getOutputStream().close();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (IOException e) {
      p.destroyForcibly();
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  public List<String> tail() {
    synchronized (tail) {
      return new ArrayList<>(tail);
    }
  }
}
