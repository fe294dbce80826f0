package io.cutpoint.ops.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.ha.LeaderElection;
import io.cutpoint.ha.LeaderTerm;
import io.cutpoint.ops.Cli;
import io.cutpoint.ops.demo.BankAccount;
import io.cutpoint.ops.demo.BankNode;
import io.cutpoint.ops.demo.CaptureLog;
import io.cutpoint.ops.local.LocalSharedStore;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.storage.RawStore;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksIterator;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * {@code cutpoint store copy} between RocksDB directories and a shared store on a real S3 API
 * server (S3Proxy) with its catalog on a real ZooKeeper server, both in this JVM.
 */
class StoreCopyTest {
  private static final AtomicInteger NEXT = new AtomicInteger();
  private static LocalSharedStore shared;

  @TempDir Path dir;

  @BeforeAll
  static void startServers() {
    shared = LocalSharedStore.start();
    // what the command's AWS SDK default credentials chain reads first
    System.setProperty("aws.accessKeyId", LocalSharedStore.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", LocalSharedStore.SECRET_KEY);
  }

  @AfterAll
  static void stopServers() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    shared.close();
  }

  @Test
  void rocksToS3ToRocksKeepsEverySnapshotAndTheServerRollsBackFromTheCopy() throws Exception {
    Path source = dir.resolve("source");
    long rollbackTarget = runBankCluster(source);
    long extra = addSnapshotsByHand(source);
    List<String> ids = new ArrayList<>();
    try (RocksSnapshotStore a = RocksSnapshotStore.open(source)) {
      a.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE))
          .forEach(m -> ids.add(0, Long.toString(m.getSnapshotId())));
    }
    assertThat(ids).hasSize(4).endsWith(Long.toString(extra));
    String s3 = freshS3();
    String zk = zookeeper(s3);

    Cli.Result up = copy(source.toString(), s3, "--zookeeper", zk);
    assertThat(up.code()).as(up.err()).isZero();
    assertThat(up.out())
        .contains("copied 4 snapshots (ids " + String.join(", ", ids) + ")")
        .contains("not copied, not committed: ")
        .contains("(aborted)")
        .contains("(failed)")
        .contains("the target's epoch is now 1");
    Path back = dir.resolve("back");
    Cli.Result down = copy(s3, back.toString(), "--zookeeper", zk, "--json");
    assertThat(down.code()).as(down.err()).isZero();
    assertThat(down.out()).contains("\"copied\":[\"" + String.join("\",\"", ids) + "\"]");

    try (RocksSnapshotStore a = RocksSnapshotStore.open(source);
        RocksSnapshotStore b = RocksSnapshotStore.open(back)) {
      List<SnapshotManifest> committed = a.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE));
      assertThat(committed).hasSize(4);
      assertThat(b.list(Set.of())).hasSize(4);
      for (SnapshotManifest m : committed) {
        assertSameSnapshot(a, b, m.getSnapshotId());
      }
      assertThat(b.manifest(extra).orElseThrow().getPinned()).isTrue();
      assertThat(b.epoch()).isEqualTo(a.epoch()).isEqualTo(1);
      assertThat(b.allocateSnapshotId()).isGreaterThan(extra);
    }
    try (SnapshotStore onS3 = shared.open(prefixOf(s3), zk.substring(zk.indexOf('/')))) {
      assertThat(onS3.allocateSnapshotId()).isGreaterThan(extra);
    }

    assertRollsBack(back, rollbackTarget);
  }

  @Test
  void aReRunCopiesNothingAgainAndAnInterruptedCopyIsCompleted() throws Exception {
    Path source = dir.resolve("source");
    long extra = addSnapshotsByHand(source);
    Path target = dir.resolve("target");
    // what an interrupted copy leaves: the snapshot created PENDING in the target, and no more
    try (RocksSnapshotStore a = RocksSnapshotStore.open(source);
        RocksSnapshotStore b = RocksSnapshotStore.open(target)) {
      b.createPending(
          StoreCopy.started(a.manifest(extra).orElseThrow()).toBuilder()
              .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
              .build());
    }
    Cli.Result first = copy(source.toString(), target.toString());
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out()).contains("copied 1 snapshot (ids " + extra + ")");

    Cli.Result again = copy(source.toString(), target.toString());
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out())
        .contains("copied 0 snapshots (none)")
        .contains("1 already in the target (ids " + extra + ")");
    try (RocksSnapshotStore a = RocksSnapshotStore.open(source);
        RocksSnapshotStore b = RocksSnapshotStore.open(target)) {
      assertSameSnapshot(a, b, extra);
    }
  }

  @Test
  void aTargetHoldingOtherContentUnderTheSameIdIsRefusedAndKeptAsItWas() throws Exception {
    Path source = dir.resolve("source");
    long extra = addSnapshotsByHand(source);
    Path target = dir.resolve("target");
    try (RocksSnapshotStore b = RocksSnapshotStore.open(target)) {
      writeSnapshot(b, extra, "other", new byte[] {1, 2, 3}, List.of());
    }
    Cli.Result r = copy(source.toString(), target.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().lines()).hasSize(1);
    assertThat(r.err())
        .contains("the target already holds snapshot " + extra + " (COMPLETE)")
        .contains("nothing was copied");
    try (RocksSnapshotStore b = RocksSnapshotStore.open(target)) {
      assertThat(b.list(Set.of())).hasSize(1);
      assertThat(b.workerMeta(extra, "other")).isPresent();
    }
  }

  @Test
  void aCorruptPieceInTheSourceIsRefusedAndLeavesNoSnapshotOfItInTheTarget() throws Exception {
    Path source = dir.resolve("source");
    long extra = addSnapshotsByHand(source);
    String s3 = freshS3();
    String zk = zookeeper(s3);
    assertThat(copy(source.toString(), s3, "--zookeeper", zk).code()).isZero();
    String chunk =
        shared
            .s3()
            .listObjectsV2(b -> b.bucket(LocalSharedStore.BUCKET).prefix(prefixOf(s3) + "/"))
            .contents()
            .stream()
            .map(o -> o.key())
            .filter(k -> k.contains("/state/"))
            .findFirst()
            .orElseThrow();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    shared.s3().getObject(b -> b.bucket(LocalSharedStore.BUCKET).key(chunk)).transferTo(bytes);
    byte[] damaged = bytes.toByteArray();
    damaged[damaged.length - 1] ^= 0x40;
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(damaged);
    String s3Crc =
        java.util.Base64.getEncoder()
            .encodeToString(java.nio.ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    shared
        .s3()
        .putObject(
            b -> b.bucket(LocalSharedStore.BUCKET).key(chunk).checksumCRC32C(s3Crc),
            RequestBody.fromBytes(damaged));

    Path target = dir.resolve("target");
    Cli.Result r = copy(s3, target.toString(), "--zookeeper", zk);
    assertThat(r.code()).as(r.out()).isEqualTo(1);
    assertThat(r.err().lines()).hasSize(1);
    assertThat(r.err())
        .contains("refused: snapshot " + extra + ", worker ")
        .contains("state chunk");
    try (RocksSnapshotStore b = RocksSnapshotStore.open(target)) {
      assertThat(b.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE))).isEmpty();
    }
  }

  /**
   * A manifest of the source that cannot be read may be a committed snapshot's: the copy refuses
   * before it writes anything. It counted it as "not committed" and exited 0, so an operator who
   * retired the source after the copy lost it.
   */
  @Test
  void aSourceManifestThatCannotBeReadIsRefusedBeforeAnythingIsCopied() throws Exception {
    Path source = dir.resolve("source");
    long extra = addSnapshotsByHand(source);
    try (RawStore raw = RawStore.open(source)) {
      ColumnFamilyHandle manifests = raw.handle("manifests");
      try (RocksIterator it = raw.db().newIterator(manifests)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          byte[] value = it.value();
          value[value.length - 1] ^= 1;
          raw.db().put(manifests, it.key(), value);
        }
      }
    }
    try (RocksSnapshotStore a = RocksSnapshotStore.open(source)) {
      assertThat(a.list(Set.of()))
          .as("the source lists its snapshots, unreadable")
          .isNotEmpty()
          .allSatisfy(
              m -> assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_UNSPECIFIED));
    }

    Path target = dir.resolve("target");
    Cli.Result r = copy(source.toString(), target.toString());
    assertThat(r.code()).as(r.out()).isEqualTo(1);
    assertThat(r.err().lines()).hasSize(1);
    assertThat(r.err())
        .contains("refused: snapshot ")
        .contains("manifest")
        .contains("nothing was copied");
    try (RocksSnapshotStore b = RocksSnapshotStore.open(target)) {
      assertThat(b.list(Set.of())).isEmpty();
      assertThat(b.manifest(extra)).isEmpty();
    }
  }

  @Test
  void badArgumentsAndStoresInUseExitTwoWithOneLine() throws Exception {
    Path source = dir.resolve("source");
    addSnapshotsByHand(source);
    String s3 = freshS3();
    String zk = zookeeper(s3);
    List<Cli.Result> bad = new ArrayList<>();
    bad.add(Cli.run("store", "copy", "--from", source.toString()));
    bad.add(copy(dir.resolve("none").toString(), dir.resolve("t").toString()));
    bad.add(copy(source.toString(), source.toString()));
    bad.add(copy(source.toString(), s3));
    bad.add(copy(s3, s3, "--zookeeper", zk));
    bad.add(copy(source.toString(), s3, "--zookeeper", "nohost"));
    bad.add(copy(source.toString(), dir.resolve("t").toString(), "--zookeeper", zk));
    bad.add(copy(source.toString(), "s3://", "--zookeeper", zk));
    bad.add(copy(source.toString(), dir.toString()));
    Path link = java.nio.file.Files.createSymbolicLink(dir.resolve("link"), source);
    Cli.Result linked = copy(source.toString(), link.toString());
    assertThat(linked.err()).contains("are the same directory");
    bad.add(linked);
    Path file = java.nio.file.Files.writeString(dir.resolve("a-file"), "x");
    Cli.Result toFile = copy(source.toString(), file.toString());
    assertThat(toFile.err()).contains("is a file, not a directory");
    bad.add(toFile);
    Cli.Result nested = copy(source.toString(), source.resolve("inside").toString());
    assertThat(nested.err()).contains("are nested");
    bad.add(nested);
    try (RocksSnapshotStore running = RocksSnapshotStore.open(source)) {
      assertThat(running.directory()).isEqualTo(source.toAbsolutePath());
      Cli.Result inUse = copy(source.toString(), dir.resolve("t").toString());
      assertThat(inUse.err()).contains("is in use by a running coordinator");
      bad.add(inUse);
    }
    String path = zk.substring(zk.indexOf('/'));
    try (LeaderElection standby =
        LeaderElection.start(shared.zookeeper(), path, "coord-1:7070", new Silent())) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  LeaderElection.participants(shared.zookeeper(), path)
                      .contains(standby.participantId()));
      Cli.Result running = copy(source.toString(), s3, "--zookeeper", zk);
      assertThat(running.err()).contains("coordinators of the cluster").contains("coord-1:7070");
      bad.add(running);
    }
    for (Cli.Result r : bad) {
      assertThat(r.code()).as(r.err()).isEqualTo(2);
      assertThat(r.err().lines()).as(r.err()).hasSize(1);
      assertThat(r.err()).startsWith("cutpoint: ");
    }
  }

  // ---- helpers ----

  private static Cli.Result copy(String from, String to, String... more) {
    List<String> args = new ArrayList<>(List.of("store", "copy", "--from", from, "--to", to));
    if (from.startsWith("s3:") || to.startsWith("s3:")) {
      args.addAll(
          List.of("--s3-endpoint", shared.s3Endpoint().toString(), "--s3-path-style", "true"));
    }
    args.addAll(List.of(more));
    return Cli.run(args.toArray(String[]::new));
  }

  private static String freshS3() {
    return "s3://" + LocalSharedStore.BUCKET + "/copy-" + NEXT.incrementAndGet();
  }

  private static String prefixOf(String s3) {
    return s3.substring(s3.indexOf('/', "s3://".length()) + 1);
  }

  private static String zookeeper(String s3) {
    return shared.zookeeperHosts() + "/cutpoint/" + prefixOf(s3);
  }

  /**
   * Three bank workers in a ring with money moving: two snapshots, a rollback to the first (epoch
   * 1), a third snapshot. Returns the id of the second.
   */
  private static long runBankCluster(Path data) throws Exception {
    CoordinatorServer server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(data)
                .snapshotInterval(Duration.ZERO)
                .retainCompleteSnapshots(100)
                .build(),
            new SimpleMeterRegistry());
    List<BankNode> nodes = new ArrayList<>();
    try {
      nodes.addAll(bank(server.target()));
      AdminGrpc.AdminBlockingStub admin = AdminGrpc.newBlockingStub(server.adminChannel());
      for (int round = 0; round < 20; round++) {
        nodes.forEach(BankNode::transferSoon);
      }
      long first = trigger(admin);
      nodes.forEach(BankNode::transferSoon);
      long second = trigger(admin);
      admin
          .withDeadlineAfter(60, TimeUnit.SECONDS)
          .rollback(RollbackRequest.newBuilder().setSnapshotId(first).setWait(true).build());
      nodes.forEach(BankNode::transferSoon);
      trigger(admin);
      return second;
    } finally {
      nodes.forEach(BankNode::close);
      server.close();
    }
  }

  private static List<BankNode> bank(String target) throws Exception {
    CaptureLog captures = new CaptureLog();
    List<BankNode> nodes = new ArrayList<>();
    List<String> ids = List.of("a", "b", "c");
    for (int i = 0; i < ids.size(); i++) {
      nodes.add(
          BankNode.start(
              ids.get(i),
              new TreeSet<>(Set.of(ids.get((i + 1) % 3))),
              new TreeSet<>(Set.of(ids.get((i + 2) % 3))),
              1_000,
              50,
              i,
              target,
              captures));
    }
    for (BankNode n : nodes) {
      n.joined().get(30, TimeUnit.SECONDS);
    }
    return nodes;
  }

  private static long trigger(AdminGrpc.AdminBlockingStub admin) {
    SnapshotManifest m =
        admin
            .withDeadlineAfter(60, TimeUnit.SECONDS)
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
            .getManifest();
    assertThat(m.getStatus()).as(m.getReason()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    return m.getSnapshotId();
  }

  /**
   * Into the store: one committed, pinned snapshot of two workers with recorded messages on both
   * channels (returned), one FAILED, one left PENDING (ABORTED when the store opens next).
   */
  private static long addSnapshotsByHand(Path data) {
    try (RocksSnapshotStore store = RocksSnapshotStore.open(data)) {
      long id = store.allocateSnapshotId();
      byte[] state = new byte[70_000];
      new java.util.Random(id).nextBytes(state);
      writeSnapshot(
          store,
          id,
          "x",
          state,
          List.of(
              new InTransitMessage(4, new byte[] {9}), new InTransitMessage(5, new byte[] {8, 7})));
      store.setPinned(id, true);
      long failed = store.allocateSnapshotId();
      store.finish(
          SnapshotManifest.newBuilder()
              .setSnapshotId(failed)
              .setStatus(SnapshotStatus.SNAPSHOT_STATUS_FAILED)
              .setReason("cut check failed")
              .build());
      long pending = store.allocateSnapshotId();
      store.createPending(
          SnapshotManifest.newBuilder()
              .setSnapshotId(pending)
              .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
              .build());
      return id;
    }
  }

  /** A committed snapshot of workers {@code worker} and "y" (empty state) with recordings. */
  private static void writeSnapshot(
      SnapshotStore store, long id, String worker, byte[] state, List<InTransitMessage> onXy) {
    SnapshotManifest pending =
        SnapshotManifest.newBuilder()
            .setSnapshotId(id)
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
            .setStartedAtUnixMs(1_700_000_000_000L + id)
            .addInitiators(worker)
            .setTopology(
                Topology.newBuilder()
                    .addWorkers(
                        WorkerDecl.newBuilder()
                            .setWorkerId(worker)
                            .addOutgoing("y")
                            .addIncoming("y"))
                    .addWorkers(
                        WorkerDecl.newBuilder()
                            .setWorkerId("y")
                            .addOutgoing(worker)
                            .addIncoming(worker)))
            .build();
    store.createPending(pending);
    for (int c = 0; c * 32_768 < state.length; c++) {
      byte[] chunk =
          java.util.Arrays.copyOfRange(state, c * 32_768, Math.min(state.length, (c + 1) * 32_768));
      store.putStateChunk(id, worker, c, chunk, Crc32c.of(chunk));
    }
    store.putWorkerMeta(
        id,
        LocalSnapshotMeta.newBuilder()
            .setWorkerId(worker)
            .setStateBytes(state.length)
            .setStateCrc32C(Crc32c.of(state))
            .build());
    store.putWorkerMeta(
        id,
        LocalSnapshotMeta.newBuilder()
            .setWorkerId("y")
            .setStateCrc32C(Crc32c.of(new byte[0]))
            .build());
    if (!onXy.isEmpty()) {
      store.putChannelRecording(id, ChannelId.of(worker, "y"), onXy);
      store.putChannelRecording(id, ChannelId.of("y", worker), onXy.subList(0, 1));
    }
    store.commit(pending.toBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).build());
  }

  /** Manifest, every worker's metadata and state, every channel's messages: all equal. */
  private static void assertSameSnapshot(SnapshotStore a, SnapshotStore b, long id) {
    SnapshotManifest m = a.manifest(id).orElseThrow();
    assertThat(b.manifest(id)).as("manifest of %d", id).contains(m);
    for (WorkerDecl w : m.getTopology().getWorkersList()) {
      String worker = w.getWorkerId();
      assertThat(b.workerMeta(id, worker)).isEqualTo(a.workerMeta(id, worker));
      assertThat(chunks(b, id, worker)).isEqualTo(chunks(a, id, worker));
      for (String from : w.getIncomingList()) {
        ChannelId c = ChannelId.of(from, worker);
        assertThat(b.readChannel(id, c))
            .as("channel %s of %d", c, id)
            .isEqualTo(a.readChannel(id, c));
      }
    }
  }

  private static List<List<Byte>> chunks(SnapshotStore s, long id, String worker) {
    List<List<Byte>> out = new ArrayList<>();
    s.readState(
        id,
        worker,
        chunk -> {
          List<Byte> bytes = new ArrayList<>();
          for (byte x : chunk) {
            bytes.add(x);
          }
          out.add(bytes);
        });
    return out;
  }

  /**
   * A coordinator on the copied store and three new bank workers: a rollback to {@code id} gives
   * every worker the balance it recorded in that snapshot plus the amounts recorded in flight to
   * it.
   */
  private static void assertRollsBack(Path data, long id) throws Exception {
    Map<String, Long> expected = new TreeMap<>();
    try (RocksSnapshotStore store = RocksSnapshotStore.open(data)) {
      // the snapshots added by hand name workers x and y, with channels, that the bank does not
      // run: a rollback must cover every worker with a channel, so they go first
      for (SnapshotManifest other : store.list(Set.of())) {
        if (other.getTopology().getWorkersList().stream()
            .anyMatch(w -> w.getWorkerId().equals("y"))) {
          store.setPinned(other.getSnapshotId(), false);
          store.delete(other.getSnapshotId());
        }
      }
      SnapshotManifest m = store.manifest(id).orElseThrow();
      for (WorkerDecl w : m.getTopology().getWorkersList()) {
        ByteArrayOutputStream state = new ByteArrayOutputStream();
        store.readState(id, w.getWorkerId(), state::writeBytes);
        long balance = BankAccount.decodeBalance(state.toByteArray());
        for (String from : w.getIncomingList()) {
          for (InTransitMessage msg : store.readChannel(id, ChannelId.of(from, w.getWorkerId()))) {
            balance += BankAccount.decodeAmount(msg.payload());
          }
        }
        expected.put(w.getWorkerId(), balance);
      }
    }
    CoordinatorServer server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(data)
                .snapshotInterval(Duration.ZERO)
                .build(),
            new SimpleMeterRegistry());
    List<BankNode> nodes = new ArrayList<>();
    try {
      nodes.addAll(bank(server.target()));
      AdminGrpc.newBlockingStub(server.adminChannel())
          .withDeadlineAfter(60, TimeUnit.SECONDS)
          .rollback(RollbackRequest.newBuilder().setSnapshotId(id).setWait(true).build());
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                Map<String, Long> balances = new TreeMap<>();
                for (BankNode n : nodes) {
                  balances.put(n.id(), n.balanceOnEventThread().get(10, TimeUnit.SECONDS));
                }
                assertThat(balances).isEqualTo(expected);
              });
      assertThat(expected.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(3_000);
    } finally {
      nodes.forEach(BankNode::close);
      server.close();
    }
  }

  /** A participant of the election that does nothing when it leads. */
  private static final class Silent implements LeaderElection.Listener {
    @Override
    public void elected(LeaderTerm term) {}

    @Override
    public void revoked(LeaderTerm term, String why) {}
  }
}
