package io.cutpoint.ops.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The event stream's life: a client that leaves takes its forwarding call with it, quietly. */
class EventStreamTest {

  @TempDir Path dir;

  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);

  @BeforeEach
  void captureLog() {
    log.start();
    root.addAppender(log);
  }

  @AfterEach
  void release() {
    root.detachAppender(log);
    log.stop();
  }

  @Test
  void aClientThatLeavesEndsItsForwardingCall() throws Exception {
    try (LiveCluster c = LiveCluster.start(dir, null, null, 2, Duration.ZERO)) {
      try (Socket s = open(c)) {
        assertThat(c.http.openEventStreams()).isEqualTo(1);
      }
      // the next event's write finds the client gone, if Jetty has not said so already
      AdminHttpApiTest.trigger(new Http(HttpClient.newHttpClient(), c.base(), null));
      await().atMost(Duration.ofSeconds(30)).until(() -> c.http.openEventStreams() == 0);
      AdminHttpApiTest.trigger(new Http(HttpClient.newHttpClient(), c.base(), null));
    }
    assertThat(problems()).isEmpty();
  }

  @Test
  void aPortThatClosesWithAStreamOpenEndsItsCallAndLaterEventsFailNothing() throws Exception {
    try (LiveCluster c = LiveCluster.start(dir, null, null, 2, Duration.ZERO);
        Socket s = open(c)) {
      c.http.close();
      // The forwarding call ends with the port. It ran on: as the coordinator closed, its end (and
      // each event before it) completed a request that Jetty had recycled, and every such write
      // logged errors in a loop, by the thousand.
      assertThat(c.http.openEventStreams()).isZero();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  Thread.getAllStackTraces().keySet().stream()
                      .noneMatch(t -> t.getName().equals("cutpoint-http-events")));
    }
    assertThat(problems()).isEmpty();
  }

  /** Opens the event stream as a browser does, and reads up to its opening comment. */
  private static Socket open(LiveCluster c) throws Exception {
    URI base = URI.create(c.base());
    Socket s = new Socket(base.getHost(), base.getPort());
    s.setSoTimeout(30_000);
    OutputStream out = s.getOutputStream();
    out.write(
        ("GET /api/v1/events HTTP/1.1\r\nAccept: text/event-stream\r\nHost: localhost:"
                + base.getPort()
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    String head = readUntil(s.getInputStream(), ": cutpoint events");
    assertThat(head).startsWith("HTTP/1.1 200").contains("text/event-stream");
    return s;
  }

  /** Warnings and errors of the HTTP port's code and libraries. */
  private List<String> problems() {
    return log.list.stream()
        .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
        .filter(
            e ->
                e.getLoggerName().startsWith("io.javalin")
                    || e.getLoggerName().startsWith("org.eclipse.jetty")
                    || e.getLoggerName().startsWith("io.cutpoint.ops.http"))
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  /** Reads until {@code marker} has arrived; everything read so far. */
  private static String readUntil(InputStream in, String marker) throws Exception {
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    while (!seen.toString(StandardCharsets.UTF_8).contains(marker)) {
      int n = in.read(buf);
      assertThat(n).as("stream ended before %s: %s", marker, seen).isPositive();
      seen.write(buf, 0, n);
    }
    return seen.toString(StandardCharsets.UTF_8);
  }
}
