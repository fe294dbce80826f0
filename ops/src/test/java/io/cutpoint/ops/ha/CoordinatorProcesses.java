package io.cutpoint.ops.ha;

import io.cutpoint.ops.CutpointCommand;
import io.cutpoint.ops.crash.ChildProcess;
import io.cutpoint.storage.S3Server;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * Coordinators of one highly available cluster, each its own JVM running {@code cutpoint server
 * --zookeeper ... --store s3://...} (the shipped command, on the test classpath). The first start
 * of a node binds port 0; later starts bind the port it got, as a restarted server keeps its
 * address. The leader is the node whose health service says SERVING. {@link #close()} kills every
 * process that is still running.
 */
final class CoordinatorProcesses implements AutoCloseable {
  static final String BUCKET = "cutpoint-ha";
  static final String CLUSTER = "/cutpoint/ha";
  static final Duration WAIT = Duration.ofSeconds(120);
  private static final Pattern LISTENING =
      Pattern.compile("cutpoint server listening on port (\\d+) as (\\S+),");

  private final Path dir;
  private final String zookeeper;
  private final S3Server s3;
  private final Duration sessionTimeout;
  private final String interval;
  private final List<Node> nodes = new ArrayList<>();
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();

  /** One coordinator: its slot, its address once bound, its current process. */
  static final class Node {
    final int index;
    volatile int port;
    volatile String address;
    volatile ChildProcess process;

    Node(int index) {
      this.index = index;
    }

    String name() {
      return "coordinator-" + index;
    }

    long pid() {
      return process.process().pid();
    }

    @Override
    public String toString() {
      return name() + "@" + address;
    }
  }

  CoordinatorProcesses(
      Path dir, String zookeeper, S3Server s3, Duration sessionTimeout, Duration interval) {
    this.dir = dir;
    this.zookeeper = zookeeper;
    this.s3 = s3;
    this.sessionTimeout = sessionTimeout;
    this.interval = interval.toMillis() + "ms";
  }

  /** Starts {@code n} nodes and waits until each has bound its port. */
  List<Node> start(int n) {
    for (int i = 0; i < n; i++) {
      Node node = new Node(nodes.size());
      nodes.add(node);
      launch(node);
    }
    for (Node node : nodes) {
      Awaitility.await("port of " + node.name()).atMost(WAIT).until(() -> node.address != null);
    }
    return List.copyOf(nodes);
  }

  List<Node> nodes() {
    return List.copyOf(nodes);
  }

  List<String> addresses() {
    return nodes.stream().map(n -> n.address).toList();
  }

  /** Starts {@code node} again (same port, new process). */
  void restart(Node node) {
    if (node.process != null && node.process.alive()) {
      throw new IllegalStateException(node + " still runs");
    }
    launch(node);
  }

  /** kill -9, and waits until the process is gone. */
  void kill(Node node) {
    node.process.kill();
  }

  /** SIGTERM: the server leaves the election and stops. */
  void stop(Node node) {
    node.process.terminate(30);
  }

  /** kill -STOP: the process keeps its sockets but runs nothing, as in a long GC pause. */
  void freeze(Node node) {
    signal(node, "-STOP");
  }

  /** kill -CONT. */
  void thaw(Node node) {
    signal(node, "-CONT");
  }

  /** The node that reports SERVING, if exactly one does. */
  Optional<Node> leader() {
    List<Node> serving = new ArrayList<>();
    for (Node n : nodes) {
      if (n.process != null && n.process.alive() && serving(n)) {
        serving.add(n);
      }
    }
    return serving.size() == 1 ? Optional.of(serving.get(0)) : Optional.empty();
  }

  /** Waits for a leader other than {@code not} (null: any). */
  Node awaitLeader(Node not) {
    return Awaitility.await("a leader other than " + not)
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(50))
        .until(this::leader, l -> l.isPresent() && l.get() != not)
        .get();
  }

  boolean serving(Node n) {
    try {
      return HealthGrpc.newBlockingStub(channel(n.address))
              .withDeadlineAfter(1, TimeUnit.SECONDS)
              .check(HealthCheckRequest.getDefaultInstance())
              .getStatus()
          == ServingStatus.SERVING;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** The last lines of every node, for a failure report. */
  String tails() {
    StringBuilder b = new StringBuilder();
    for (Node n : nodes) {
      b.append("---- last lines of ").append(n).append('\n');
      if (n.process != null) {
        n.process.tail().forEach(l -> b.append("  ").append(l).append('\n'));
      }
    }
    return b.toString();
  }

  @Override
  public void close() {
    for (Node n : nodes) {
      if (n.process != null) {
        n.process.kill(); // SIGKILL ends a stopped (SIGSTOP) process too
      }
    }
    for (ManagedChannel c : channels.values()) {
      c.shutdownNow();
    }
    for (ManagedChannel c : channels.values()) {
      try {
        c.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private ManagedChannel channel(String address) {
    return channels.computeIfAbsent(
        address, a -> Grpc.newChannelBuilder(a, InsecureChannelCredentials.create()).build());
  }

  private void launch(Node node) {
    List<String> args =
        List.of(
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            Integer.toString(node.port),
            "--metrics-port",
            "-1",
            "--data-dir",
            dir.resolve(node.name()).toString(),
            "--zookeeper",
            zookeeper + CLUSTER,
            "--zookeeper-session-timeout",
            sessionTimeout.toMillis() + "ms",
            "--store",
            "s3://" + BUCKET + "/cluster",
            "--s3-endpoint",
            s3.endpoint().toString(),
            "--s3-path-style",
            "true",
            "--interval",
            interval,
            "--min-pause",
            "0ms",
            "--heartbeat-interval",
            "200ms",
            "--heartbeat-timeout",
            "2s",
            "--retain",
            "100000");
    ChildProcess p =
        new ChildProcess(
            node.name(),
            CutpointCommand.class,
            args,
            Map.of(
                "AWS_ACCESS_KEY_ID", S3Server.ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY", S3Server.SECRET_KEY,
                "CUTPOINT_LOG_LEVEL", "INFO"),
            dir.resolve(node.name() + ".tmp"),
            (name, line) -> line(node, line));
    node.process = p;
    p.start();
  }

  private static void line(Node node, String line) {
    Matcher m = LISTENING.matcher(line);
    if (m.find()) {
      node.port = Integer.parseInt(m.group(1));
      node.address = m.group(2);
    }
    if (line.contains(" leads under ")
        || line.contains("stops leading")
        || line.contains("refused a write")
        || line.contains("ERROR")) {
      System.out.println("[" + node.name() + "] " + line);
    }
  }

  private static void signal(Node node, String signal) {
    try {
      Process kill =
          new ProcessBuilder("kill", signal, Long.toString(node.pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill " + signal + " " + node + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
