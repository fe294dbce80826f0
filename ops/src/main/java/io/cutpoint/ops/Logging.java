package io.cutpoint.ops;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Where the {@code cutpoint} command's log goes. gRPC and Netty log through {@code
 * java.util.logging}; that is routed to SLF4J, so {@code logback.xml} decides what is printed
 * (stderr, one line each).
 */
public final class Logging {

  /** Held strongly: {@code java.util.logging} keeps loggers weakly, and would forget the level. */
  private static final Logger GRPC = Logger.getLogger("io.grpc");

  private Logging() {}

  /** Sends {@code java.util.logging} records to SLF4J instead of JUL's console handler. */
  public static void routeJulToSlf4j() {
    // Configure logback first: its LevelChangePropagator resets JUL's levels when it starts, which
    // would undo a later quietGrpc() if logback only started on the first log record.
    LoggerFactory.getILoggerFactory();
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }

  /**
   * Silences gRPC's own log, for commands that are clients of a coordinator: they report a failed
   * call as one line, which gRPC's warnings (a stack trace for an unknown host) would only repeat.
   */
  public static void quietGrpc() {
    GRPC.setLevel(Level.OFF);
  }
}
