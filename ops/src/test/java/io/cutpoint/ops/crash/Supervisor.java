package io.cutpoint.ops.crash;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps child processes running: when one dies (killed or crashed) it is started again with the
 * same arguments (same worker id, same port and data directory), until {@link #shutdown}. Deaths
 * the test did not cause are counted: a crash-test worker must never die by itself.
 */
final class Supervisor implements AutoCloseable {

  private final Map<String, ChildProcess> children = new LinkedHashMap<>();
  private final Map<String, AtomicInteger> expectedDeaths = new LinkedHashMap<>();
  private final List<String> unexpectedDeaths = new ArrayList<>();
  private volatile boolean stopping;

  synchronized void add(ChildProcess child) {
    children.put(child.name, child);
    expectedDeaths.put(child.name, new AtomicInteger());
    launch(child);
  }

  private void launch(ChildProcess child) {
    child.start();
    child.process().onExit().thenRun(() -> died(child));
  }

  private void died(ChildProcess child) {
    synchronized (this) {
      if (stopping) {
        return;
      }
      if (expectedDeaths.get(child.name).getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
        unexpectedDeaths.add(
            child.name
                + " exited by itself with status "
                + child.process().exitValue()
                + "; last lines: "
                + child.tail());
      }
      launch(child);
    }
  }

  /** kill -9 of {@code name}; the supervisor starts it again. */
  void kill(String name) {
    ChildProcess child;
    synchronized (this) {
      child = children.get(name);
      expectedDeaths.get(name).incrementAndGet();
    }
    child.kill();
  }

  synchronized ChildProcess child(String name) {
    return children.get(name);
  }

  synchronized List<ChildProcess> all() {
    return new ArrayList<>(children.values());
  }

  synchronized List<String> unexpectedDeaths() {
    return new ArrayList<>(unexpectedDeaths);
  }

  /** From now on children are not restarted. */
  void shutdown() {
    stopping = true;
  }

  /** Stops restarting and kills every child. */
  @Override
  public void close() {
    stopping = true;
    for (ChildProcess c : all()) {
      c.kill();
    }
  }

  /** The last lines of every child, for a failure report. */
  String tails() {
    StringBuilder b = new StringBuilder();
    for (ChildProcess c : all()) {
      b.append("---- last lines of ")
          .append(c.name)
          .append(" (started ")
          .append(c.starts())
          .append(" times)\n");
      c.tail().forEach(l -> b.append("  ").append(l).append('\n'));
    }
    return b.toString();
  }
}
