package io.cutpoint.playground;

import io.cutpoint.playground.sim.ProcessGraph;
import io.cutpoint.playground.sim.Simulation;
import java.util.ArrayList;
import java.util.List;
import org.teavm.jso.JSExport;

/**
 * What the page calls: TeaVM exports these static methods as global functions of {@code engine.js}.
 * Each one is a thin call into {@link Simulation}; a refused call returns its reason (a command) or
 * {@code {"error": ...}} (the state), never throws into the page.
 */
public final class PlaygroundExports {

  private static Simulation sim;

  private PlaygroundExports() {}

  /**
   * Builds a new system. {@code topology} is ring, mesh, line, random, or drawn (then {@code links}
   * lists its links, {@code "1-2,2-3"}). Returns "" or why the system was refused (the previous one
   * then keeps running).
   */
  @JSExport
  public static String cpReset(
      String topology, int size, String links, int seed, int delayMs, double rate, int fifo) {
    try {
      ProcessGraph t =
          topology.equals("drawn")
              ? ProcessGraph.drawn(size, links)
              : ProcessGraph.named(topology, size, seed);
      Simulation s = new Simulation(t, seed, delayMs);
      s.setRate(rate);
      s.setFifo(fifo != 0);
      sim = s;
      return "";
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  @JSExport
  public static String cpSetRate(double perSecond) {
    return run(() -> sim.setRate(perSecond));
  }

  @JSExport
  public static String cpSetFifo(int on) {
    return run(() -> sim.setFifo(on != 0));
  }

  /** The mean delay of channel {@code from -> to}, or of every channel when {@code from} is "". */
  @JSExport
  public static String cpSetDelay(String from, String to, int ms) {
    return run(() -> sim.setDelay(from.isEmpty() ? null : from, to, ms));
  }

  /** Runs the simulated clock {@code ms} forward. */
  @JSExport
  public static String cpAdvance(int ms) {
    return run(() -> sim.advance(ms));
  }

  /** Runs the next event only. */
  @JSExport
  public static String cpStep() {
    return run(sim::step);
  }

  /** Starts one snapshot at the comma-separated initiators; returns its id, or why not. */
  @JSExport
  @SuppressWarnings(
      "StringSplitter") // empty parts are skipped; Guava's Splitter is not in the browser
  public static String cpSnapshot(String initiators) {
    List<String> list = new ArrayList<>();
    for (String p : initiators.split(",")) {
      if (!p.trim().isEmpty()) {
        list.add(p.trim());
      }
    }
    try {
      return String.valueOf(sim.snapshot(list));
    } catch (IllegalArgumentException e) {
      return "error: " + e.getMessage();
    }
  }

  /** {@link Simulation#batch}: returns how many of the {@code count} snapshots were consistent. */
  @JSExport
  public static int cpBatch(int count, int spacingMs) {
    return sim.batch(count, spacingMs);
  }

  @JSExport
  public static String cpRollback(int snapshotId) {
    return run(() -> sim.rollback(snapshotId));
  }

  /** The state, with the arrivals of the last {@code windowMs} simulated milliseconds. */
  @JSExport
  public static String cpState(int windowMs) {
    return sim == null ? "{\"error\":\"no system yet\"}" : StateJson.of(sim, windowMs);
  }

  private static String run(Runnable r) {
    if (sim == null) {
      return "no system yet: call cpReset first";
    }
    try {
      r.run();
      return "";
    } catch (IllegalArgumentException | IllegalStateException e) {
      return e.getMessage();
    }
  }
}
