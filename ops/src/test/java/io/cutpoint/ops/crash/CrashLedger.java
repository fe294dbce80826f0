package io.cutpoint.ops.crash;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the worker processes reported ({@code CP ...} lines), and the checks on it: a restored state
 * equals the piece the worker recorded for that snapshot, and a snapshot's balances plus the
 * amounts recorded in transit add up to the total. Pure: fed lines, answers violations.
 */
final class CrashLedger {

  /** A worker's local snapshot as it recorded it. */
  record Piece(String worker, long snapshot, long epoch, long balance, long crc, long inFlight) {}

  /** A restore as the worker carried it out. */
  record Restored(
      String worker, long snapshot, long epoch, long balance, long crc, long inFlight) {}

  /** An answer to {@code QUIET}. */
  record Quiet(String worker, boolean quiet, long balance, long epoch) {}

  private final Map<String, Piece> pieces = new ConcurrentHashMap<>();
  private final List<Restored> restores = new CopyOnWriteArrayList<>();
  private final Map<String, Quiet> quiet = new ConcurrentHashMap<>();
  private final Map<String, Integer> joins = new ConcurrentHashMap<>();
  private final List<String> problems = new CopyOnWriteArrayList<>();
  private final List<Long> rollbackMillis = new CopyOnWriteArrayList<>();
  private volatile boolean coordinatorReady;
  private volatile int coordinatorPort;
  private static final java.util.regex.Pattern ROLLBACK_DONE =
      java.util.regex.Pattern.compile(
          "rollback to snapshot \\d+ COMPLETED in epoch \\d+ after (\\d+) ms");

  /** One line of output of child {@code child}. */
  void accept(String child, String line) {
    if (!line.startsWith("CP ")) {
      java.util.regex.Matcher m = ROLLBACK_DONE.matcher(line);
      if (m.find()) {
        rollbackMillis.add(Long.parseLong(m.group(1)));
      }
      return;
    }
    String[] words = line.split(" ");
    Map<String, String> kv = new HashMap<>();
    for (int i = 2; i < words.length; i++) {
      int eq = words[i].indexOf('=');
      if (eq > 0) {
        kv.put(words[i].substring(0, eq), words[i].substring(eq + 1));
      }
    }
    try {
      switch (words[1]) {
        case "READY" -> {
          coordinatorPort = Integer.parseInt(kv.get("port"));
          coordinatorReady = true;
        }
        case "JOINED" -> joins.merge(kv.get("w"), 1, Integer::sum);
        case "PIECE" -> {
          Piece p =
              new Piece(
                  kv.get("w"),
                  num(kv, "s"),
                  num(kv, "e"),
                  num(kv, "bal"),
                  num(kv, "crc"),
                  num(kv, "inflight"));
          Piece before = pieces.putIfAbsent(key(p.snapshot(), p.worker()), p);
          if (before != null && !before.equals(p)) {
            problems.add(
                "two different pieces of snapshot "
                    + p.snapshot()
                    + " from "
                    + p.worker()
                    + ": "
                    + before
                    + " and "
                    + p);
          }
        }
        case "RESTORED" ->
            restores.add(
                new Restored(
                    kv.get("w"),
                    num(kv, "s"),
                    num(kv, "e"),
                    num(kv, "bal"),
                    num(kv, "crc"),
                    num(kv, "inflight")));
        case "QUIET" ->
            quiet.put(
                kv.get("w"),
                new Quiet(
                    kv.get("w"),
                    Boolean.parseBoolean(kv.get("quiet")),
                    num(kv, "bal"),
                    num(kv, "e")));
        default -> {}
      }
    } catch (RuntimeException e) {
      problems.add(child + ": unreadable report '" + line + "': " + e);
    }
  }

  private static long num(Map<String, String> kv, String k) {
    return Long.parseLong(kv.get(k));
  }

  private static String key(long snapshot, String worker) {
    return snapshot + "/" + worker;
  }

  Optional<Piece> piece(long snapshot, String worker) {
    return Optional.ofNullable(pieces.get(key(snapshot, worker)));
  }

  List<Restored> restores() {
    return List.copyOf(restores);
  }

  /** Restores into {@code epoch}, one per worker (the last one of each). */
  Map<String, Restored> restoresInto(long epoch) {
    Map<String, Restored> out = new HashMap<>();
    restores.stream().filter(r -> r.epoch() == epoch).forEach(r -> out.put(r.worker(), r));
    return out;
  }

  boolean hasAllPieces(long snapshot, Collection<String> workers) {
    return workers.stream().allMatch(w -> pieces.containsKey(key(snapshot, w)));
  }

  /** Every restore whose state differs from the piece its worker recorded for that snapshot. */
  List<String> restoreViolations() {
    List<String> out = new ArrayList<>();
    for (Restored r : restores) {
      Piece p = pieces.get(key(r.snapshot(), r.worker()));
      if (p == null) {
        out.add(
            r.worker()
                + " restored snapshot "
                + r.snapshot()
                + " in epoch "
                + r.epoch()
                + " but never reported recording that snapshot");
      } else if (p.crc() != r.crc() || p.balance() != r.balance() || p.inFlight() != r.inFlight()) {
        out.add(
            r.worker()
                + " restored snapshot "
                + r.snapshot()
                + " in epoch "
                + r.epoch()
                + " as balance "
                + r.balance()
                + " (crc "
                + r.crc()
                + ", in flight "
                + r.inFlight()
                + ") but recorded balance "
                + p.balance()
                + " (crc "
                + p.crc()
                + ", in flight "
                + p.inFlight()
                + ")");
      }
    }
    return out;
  }

  /** Balances plus recorded in-flight amounts of {@code snapshot} against {@code total}. */
  Optional<String> conservationViolation(long snapshot, Collection<String> workers, long total) {
    long sum = 0;
    for (String w : workers) {
      Piece p = pieces.get(key(snapshot, w));
      if (p == null) {
        return Optional.of("snapshot " + snapshot + ": no piece reported by " + w);
      }
      sum += p.balance() + p.inFlight();
    }
    return sum == total
        ? Optional.empty()
        : Optional.of(
            "snapshot " + snapshot + " holds " + sum + " (balances + in flight), not " + total);
  }

  Map<String, Quiet> quiet() {
    return Map.copyOf(quiet);
  }

  void clearQuiet() {
    quiet.clear();
  }

  int joins(String worker) {
    return joins.getOrDefault(worker, 0);
  }

  /** The port the coordinator reported when it last became ready. */
  int coordinatorPort() {
    return coordinatorPort;
  }

  boolean coordinatorReady() {
    return coordinatorReady;
  }

  void coordinatorDown() {
    coordinatorReady = false;
  }

  /** Durations of the rollbacks the coordinator logged as COMPLETED, in milliseconds. */
  List<Long> rollbackMillis() {
    return List.copyOf(rollbackMillis);
  }

  List<String> problems() {
    return List.copyOf(problems);
  }
}
