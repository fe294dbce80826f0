package io.cutpoint.ops.crash;

import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionOptions;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One bank worker as its own process, for the crash test: a {@link Worker} with a {@link
 * CrashAccount} and a {@link CoordinatorSession}, moving money to its peers every few milliseconds.
 * Reports on stdout ({@code CP ...} lines); takes commands on stdin: {@code STOP} (no more
 * transfers), {@code QUIET} (answers whether everything it sent was delivered, and its balance).
 * Exits when stdin ends.
 *
 * <p>Arguments: worker id, coordinator host:port, comma-separated peers, opening balance, seed.
 */
public final class CrashWorkerMain {

  private CrashWorkerMain() {}

  public static void main(String[] args) throws Exception {
    String id = args[0];
    String target = args[1];
    List<String> peers = List.of(args[2].split(","));
    long balance = Long.parseLong(args[3]);
    long seed = Long.parseLong(args[4]);
    PrintStream stdout =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    java.util.function.Consumer<String> out =
        line -> {
          synchronized (stdout) {
            stdout.println(line);
          }
        };

    CrashAccount account = new CrashAccount(balance, peers, seed);
    Worker worker =
        Worker.builder(id)
            .outgoing(peers)
            .incoming(peers)
            .stateHandler(account)
            .messageHandler(account)
            .build();
    account.attach(worker);
    worker.start();
    ReportingControl control = new ReportingControl(worker, account, out);
    CoordinatorSession session =
        CoordinatorSession.connect(
            target,
            control,
            SessionOptions.defaults().withReconnect(Duration.ofMillis(50), Duration.ofMillis(500)));
    session.joined().thenRun(() -> out.accept("CP JOINED w=" + id + " e=" + worker.epoch()));

    ScheduledExecutorService driver = Executors.newSingleThreadScheduledExecutor();
    java.util.concurrent.atomic.AtomicBoolean traffic =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    driver.scheduleWithFixedDelay(
        () -> {
          if (traffic.get()) {
            try {
              worker.execute(account::transfer);
            } catch (RuntimeException e) {
              // closing
            }
          }
        },
        3,
        3,
        TimeUnit.MILLISECONDS);

    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      switch (line.trim()) {
        case "STOP" -> {
          traffic.set(false);
          CompletableFuture<Void> drained = new CompletableFuture<>();
          worker.execute(() -> drained.complete(null)); // transfers queued before STOP have run
          drained.get(10, TimeUnit.SECONDS);
          out.accept("CP STOPPED w=" + id);
        }
        case "QUIET" -> {
          CompletableFuture<Long> bal = new CompletableFuture<>();
          worker.execute(() -> bal.complete(account.balance()));
          long b = bal.get(10, TimeUnit.SECONDS);
          out.accept(
              "CP QUIET w="
                  + id
                  + " quiet="
                  + worker.allAcknowledged()
                  + " bal="
                  + b
                  + " e="
                  + worker.epoch());
        }
        default -> out.accept("CP UNKNOWN " + line);
      }
    }
    driver.shutdownNow();
    session.close();
    worker.close();
  }
}
