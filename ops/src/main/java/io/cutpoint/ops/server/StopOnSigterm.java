package io.cutpoint.ops.server;

import sun.misc.Signal;

/**
 * Makes SIGTERM a graceful stop that exits 0, as service managers (systemd, Kubernetes) expect.
 * Without it the JVM runs its shutdown hooks and exits 143; with it, SIGTERM runs {@code stop} on
 * the JVM's signal thread, {@code cutpoint server} returns from waiting for the coordinator, and
 * the command exits normally. SIGINT (Ctrl-C) keeps the JVM's behaviour.
 */
final class StopOnSigterm {

  private StopOnSigterm() {}

  /** On SIGTERM, runs {@code stop} (on the JVM's signal thread). */
  static void install(Runnable stop) {
    Signal.handle(new Signal("TERM"), signal -> stop.run());
  }
}
