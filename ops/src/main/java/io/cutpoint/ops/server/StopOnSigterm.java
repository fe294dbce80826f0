package io.cutpoint.ops.server;

import sun.misc.Signal;

/**
 * Makes SIGTERM a graceful stop that exits 0, as service managers (systemd, Kubernetes) expect.
 * Without it the JVM runs its shutdown hooks and exits 143; with it, SIGTERM runs {@code stop} on
 * the JVM's signal thread, {@code cutpoint server} returns from waiting for the coordinator, and
 * the command exits normally. SIGINT (Ctrl-C) keeps the JVM's behaviour.
 *
 * <p>Java has no public API for signal handlers: {@code sun.misc.Signal} (module {@code
 * jdk.unsupported}, kept for this use) is the only one. javac's "internal proprietary API" warning
 * for it cannot be suppressed ({@code @SuppressWarnings} does not reach it, with or without {@code
 * -XDenableSunApiLintControl}, under {@code --release}), so the build shows it.
 */
final class StopOnSigterm {

  private StopOnSigterm() {}

  /** On SIGTERM, runs {@code stop} (on the JVM's signal thread). */
  static void install(Runnable stop) {
    Signal.handle(new Signal("TERM"), signal -> stop.run());
  }
}
