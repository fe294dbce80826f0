package io.cutpoint.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy for tests that forwards bytes to a target and breaks connections at random
 * points of the byte stream: each connection is cut after a random number of forwarded bytes (in
 * either direction), until {@code maxCuts} cuts were made. Then it forwards faithfully.
 */
final class FaultyProxy implements AutoCloseable {

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final Random random;
  private final int maxCuts;
  private final int maxBytesBeforeCut;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final ExecutorService threads;
  private final AtomicInteger cuts = new AtomicInteger();
  private final AtomicLong forwarded = new AtomicLong();
  private volatile boolean closed;

  FaultyProxy(String targetAddress, long seed, int maxCuts, int maxBytesBeforeCut)
      throws IOException {
    this.target = PeerEndpoint.parse(targetAddress);
    this.random = new Random(seed);
    this.maxCuts = maxCuts;
    this.maxBytesBeforeCut = maxBytesBeforeCut;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    AtomicInteger n = new AtomicInteger();
    this.threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t =
                  new Thread(
                      r, "faulty-proxy-" + server.getLocalPort() + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    threads.execute(this::acceptLoop);
  }

  String address() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  int cuts() {
    return cuts.get();
  }

  long forwardedBytes() {
    return forwarded.get();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream;
        try {
          upstream = new Socket(target.getAddress(), target.getPort());
        } catch (IOException e) {
          client.close();
          continue;
        }
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(upstream);
        long budget;
        synchronized (random) {
          budget = cuts.get() < maxCuts ? 1 + random.nextInt(maxBytesBeforeCut) : Long.MAX_VALUE;
        }
        Connection c = new Connection(client, upstream, budget);
        threads.execute(() -> c.pump(client, upstream));
        threads.execute(() -> c.pump(upstream, client));
      } catch (IOException e) {
        if (!closed) {
          continue;
        }
        return;
      }
    }
  }

  private final class Connection {
    private final Socket a;
    private final Socket b;
    private final AtomicLong bytesLeft;

    Connection(Socket a, Socket b, long budget) {
      this.a = a;
      this.b = b;
      this.bytesLeft = new AtomicLong(budget);
    }

    void pump(Socket from, Socket to) {
      byte[] buf = new byte[16 << 10];
      try (InputStream in = from.getInputStream();
          OutputStream out = to.getOutputStream()) {
        while (true) {
          int n = in.read(buf);
          if (n < 0) {
            break;
          }
          long left = bytesLeft.addAndGet(-n);
          if (left < 0) {
            int keep = (int) Math.max(0, n + left);
            out.write(buf, 0, keep); // cut in the middle of whatever this chunk holds
            cuts.incrementAndGet();
            break;
          }
          out.write(buf, 0, n);
          forwarded.addAndGet(n);
        }
      } catch (IOException e) {
        // the other direction cut or closed this connection
      } finally {
        close(a);
        close(b);
      }
    }
  }

  private void close(Socket s) {
    sockets.remove(s);
    try {
      s.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() throws InterruptedException {
    closed = true;
    try {
      server.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    sockets.forEach(this::close);
    threads.shutdownNow();
    threads.awaitTermination(5, TimeUnit.SECONDS);
  }
}
