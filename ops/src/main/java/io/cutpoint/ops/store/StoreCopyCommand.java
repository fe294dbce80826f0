package io.cutpoint.ops.store;

import io.cutpoint.ha.node.ZooKeeperAddress;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.config.ConfigException;
import io.cutpoint.ops.config.Setting;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cutpoint store copy --from STORE --to STORE}: copies every committed snapshot between a
 * RocksDB data directory and a shared S3 store (either way, or between two directories), keeping
 * ids, pins and every byte, each piece verified on read and after the write ({@link StoreCopy}).
 * Both stores must be stopped. Exit 0: copied; 1: a piece failed its check or a store failed; 2:
 * bad usage, a store in use, or a target that holds other snapshots under the same ids.
 */
@Command(
    name = "copy",
    mixinStandardHelpOptions = true,
    description = {
      "Copy every committed snapshot from one stopped store to another, with the same ids and pins,"
          + " verifying every piece's checksums on read and after the write. A STORE is a RocksDB"
          + " data directory or s3://BUCKET/PREFIX (with --zookeeper and the --s3-* flags, as"
          + " 'cutpoint server' takes them). PENDING, ABORTED and FAILED snapshots are not copied."
          + " Never overwrites: a re-run after an interrupted copy completes it.",
      "Exit 0: copied; 1: a piece failed its check, or a store failed; 2: bad usage, a store in"
          + " use, or a target holding other snapshots under the same ids."
    })
final class StoreCopyCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--from",
      required = true,
      paramLabel = "STORE",
      description = "The store to copy from: a data directory or s3://BUCKET/PREFIX.")
  String from;

  @Option(
      names = "--to",
      required = true,
      paramLabel = "STORE",
      description = "The store to copy into (a new directory is created).")
  String to;

  @Option(
      names = "--zookeeper",
      paramLabel = "HOSTS/PATH",
      description = "ZooKeeper ensemble and cluster path of the s3:// store's catalog.")
  String zookeeper;

  @Option(
      names = "--s3-endpoint",
      paramLabel = "URL",
      description = "Endpoint of an S3-compatible object store (none = AWS S3).")
  String s3Endpoint;

  @Option(
      names = "--s3-region",
      paramLabel = "TEXT",
      defaultValue = "us-east-1",
      description = "Region of the store's bucket (default: ${DEFAULT-VALUE}).")
  String s3Region;

  @Option(
      names = "--s3-path-style",
      paramLabel = "BOOL",
      defaultValue = "false",
      description = "Address the bucket in the URL's path, as S3Proxy and MinIO need.")
  String s3PathStyle;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  /** {@code dir} with its links resolved, as far as it exists; the rest as named. */
  private static Path real(Path dir) {
    Path existing = dir;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return dir;
    }
    try {
      return existing.toRealPath().resolve(existing.relativize(dir)).normalize();
    } catch (IOException e) {
      return dir;
    }
  }

  @Override
  public Integer call() {
    StoreOpener.Address source = address("--from", from);
    StoreOpener.Address target = address("--to", to);
    if (source.equals(target)) {
      throw CliFailure.usage("--from and --to are the same store: " + source);
    }
    if (source instanceof StoreOpener.Rocks a && target instanceof StoreOpener.Rocks b) {
      // by the directories themselves, not their names: a link or a nesting would open one
      // RocksDB directory twice, or write a store into the other's files
      Path realFrom = real(a.dir());
      Path realTo = real(b.dir());
      if (realFrom.startsWith(realTo) || realTo.startsWith(realFrom)) {
        throw CliFailure.usage(
            "--from "
                + a
                + " and --to "
                + b
                + (realFrom.equals(realTo) ? " are the same directory" : " are nested")
                + " ("
                + realFrom
                + ", "
                + realTo
                + ")");
      }
    }
    boolean shared = source instanceof StoreOpener.Shared || target instanceof StoreOpener.Shared;
    if (source instanceof StoreOpener.Shared && target instanceof StoreOpener.Shared) {
      throw CliFailure.usage(
          "--from and --to are both s3:// stores, and one --zookeeper path holds one catalog:"
              + " copy through a RocksDB directory");
    }
    StoreOpener.SharedSettings settings = settings(shared);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    long start = System.nanoTime();
    StoreCopy.Report report;
    try (StoreOpener opener = new StoreOpener(settings)) {
      SnapshotStore in = opener.open("--from", source, true);
      SnapshotStore into = opener.open("--to", target, false);
      report =
          new StoreCopy(
                  in,
                  into,
                  Clock.systemUTC(),
                  line -> {
                    if (!json) {
                      out.println(line);
                      out.flush();
                    }
                  })
              .run();
    } catch (StoreCopy.Conflict e) {
      throw CliFailure.usage(e.getMessage());
    } catch (StoreCopy.UnreadableSource e) {
      throw CliFailure.failed("refused: " + e.getMessage());
    } catch (CorruptionException e) {
      throw CliFailure.failed(
          "refused: " + e.getMessage() + "; the snapshots before it are copied and verified");
    } catch (StoreException e) {
      throw CliFailure.failed(e.getMessage());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (json) {
      out.println(json(report, source, target, seconds));
    } else {
      summary(report, seconds).forEach(out::println);
    }
    out.flush();
    err.flush();
    return ExitCodes.OK;
  }

  private static StoreOpener.Address address(String flag, String text) {
    try {
      return StoreOpener.Address.parse(text);
    } catch (IllegalArgumentException e) {
      throw CliFailure.usage("bad value for " + flag + ": " + e.getMessage());
    }
  }

  private StoreOpener.SharedSettings settings(boolean shared) {
    if (!shared) {
      if (zookeeper != null || s3Endpoint != null) {
        throw CliFailure.usage(
            (zookeeper != null ? "--zookeeper" : "--s3-endpoint")
                + " is used only with an s3:// store");
      }
      return new StoreOpener.SharedSettings(null, null, s3Region, false);
    }
    try {
      return new StoreOpener.SharedSettings(
          zookeeper == null
              ? null
              : (ZooKeeperAddress) Setting.ZOOKEEPER.parse(zookeeper, "flag --zookeeper"),
          s3Endpoint == null
              ? null
              : (URI) Setting.S3_ENDPOINT.parse(s3Endpoint, "flag --s3-endpoint"),
          (String) Setting.S3_REGION.parse(s3Region, "flag --s3-region"),
          (Boolean) Setting.S3_PATH_STYLE.parse(s3PathStyle, "flag --s3-path-style"));
    } catch (ConfigException e) {
      throw CliFailure.usage(e.getMessage());
    }
  }

  static List<String> summary(StoreCopy.Report report, double seconds) {
    List<StoreCopy.Entry> copied = report.with(StoreCopy.Outcome.COPIED);
    List<StoreCopy.Entry> there = report.with(StoreCopy.Outcome.ALREADY_THERE);
    List<StoreCopy.Entry> skipped = report.with(StoreCopy.Outcome.NOT_COMMITTED);
    List<String> lines = new java.util.ArrayList<>();
    lines.add(
        String.format(
            java.util.Locale.ROOT,
            "copied %d snapshot%s (%s), %s, in %.1f s; %d already in the target%s",
            copied.size(),
            copied.size() == 1 ? "" : "s",
            copied.isEmpty() ? "none" : "ids " + ids(copied),
            Human.bytes(report.bytesCopied()),
            seconds,
            there.size(),
            there.isEmpty() ? "" : " (ids " + ids(there) + ")"));
    if (!skipped.isEmpty()) {
      lines.add(
          "not copied, not committed: "
              + skipped.stream()
                  .map(e -> e.id() + " (" + Human.enumName(e.status(), "SNAPSHOT_STATUS_") + ")")
                  .collect(Collectors.joining(", ")));
    }
    if (report.epochRaisedTo() >= 0) {
      lines.add("the target's epoch is now " + report.epochRaisedTo() + ", as the source's");
    }
    return lines;
  }

  private static String json(
      StoreCopy.Report report,
      StoreOpener.Address source,
      StoreOpener.Address target,
      double seconds) {
    Json.Obj o = Json.object().put("from", source.toString()).put("to", target.toString());
    o.put("copied", idList(report.with(StoreCopy.Outcome.COPIED)));
    o.put("already_there", idList(report.with(StoreCopy.Outcome.ALREADY_THERE)));
    o.put(
        "not_copied",
        report.with(StoreCopy.Outcome.NOT_COMMITTED).stream()
            .map(
                e ->
                    Json.object()
                        .id("snapshot_id", e.id())
                        .put("status", Human.enumName(e.status(), "SNAPSHOT_STATUS_")))
            .toList());
    o.put("bytes", report.bytesCopied());
    o.put("seconds", seconds);
    o.put("epoch_raised_to", report.epochRaisedTo() < 0 ? null : report.epochRaisedTo());
    return o.toString();
  }

  private static List<String> idList(List<StoreCopy.Entry> entries) {
    return entries.stream().map(e -> Long.toUnsignedString(e.id())).toList();
  }

  private static String ids(List<StoreCopy.Entry> entries) {
    return entries.stream().map(e -> Long.toString(e.id())).collect(Collectors.joining(", "));
  }
}
