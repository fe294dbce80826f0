package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.ha.FencedException;
import io.cutpoint.ha.S3SnapshotStore;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ContentChunksContract} on {@link S3SnapshotStore}, on a real ZooKeeper and a real S3 API
 * server: each open is a new leader term, its chunks are the objects under {@code chunks/}, damaged
 * and removed through the S3 API. Also: a deferred sweep collects too, a snapshot of shared chunks
 * has no state object of its own, and a fenced store deletes no chunk while the leader does.
 */
class S3ContentChunksTest extends ContentChunksContract {
  private static HaTestbed bed;
  private S3SnapshotStore.Location where;

  @BeforeAll
  static void start() throws Exception {
    bed = new HaTestbed();
  }

  @AfterAll
  static void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void freshLocation() {
    where = bed.fresh();
  }

  @Override
  SnapshotStore open() {
    return bed.open(where);
  }

  /** The chunk objects, by key, with the hash each names. */
  private Map<ByteString, String> chunkObjects() {
    Map<ByteString, String> out = new HashMap<>();
    String root = where.prefix() + "/chunks/";
    for (String key : bed.objects(where)) {
      if (key.startsWith(root)) {
        String hex = key.substring(root.length(), key.indexOf('-', root.length()));
        out.put(ByteString.copyFrom(HexFormat.of().parseHex(hex)), key);
      }
    }
    return out;
  }

  @Override
  Set<ByteString> stored() {
    return new HashSet<>(chunkObjects().keySet());
  }

  @Override
  void damage(ByteString hash) {
    String key = chunkObjects().get(hash);
    byte[] raw = bed.getRaw(key);
    raw[100] ^= 0x01;
    bed.putRaw(key, raw);
  }

  @Override
  void remove(ByteString hash) {
    bed.deleteRaw(chunkObjects().get(hash));
  }

  @Override
  int collectedOnOpen(SnapshotStore store) {
    return ((S3SnapshotStore) store).contentChunksCollectedOnOpen();
  }

  @Test
  void aSnapshotOfSharedChunksHasNoStateObjectOfItsOwn() {
    SnapshotFixture f = shared(1, 0);
    try (SnapshotStore store = open()) {
      f.storeContent(store);
      assertThat(bed.objects(where, 1)).isNotEmpty().noneMatch(k -> k.contains("/state/"));
      assertThat(store.contentChunks()).isEqualTo(hashesOf(f).size());
    }
  }

  @Test
  void aDeferredSweepCollectsToo() {
    SnapshotFixture first = shared(1, 0);
    S3SnapshotStore crashed = bed.open(where);
    crashed.createPending(first.pending());
    SnapshotFixture.WORKERS.forEach(w -> first.writeWorkerContent(crashed, w));

    S3SnapshotStore next = bed.openDeferringSweep(where);
    assertThat(stored()).as("opening left the bucket alone").isEqualTo(hashesOf(first));
    next.sweepLeftovers();
    assertThat(next.contentChunksCollectedOnOpen()).isEqualTo(hashesOf(first).size());
    assertThat(stored()).isEmpty();
  }

  @Test
  void aFencedStoreDeletesNoChunkAndTheLeaderCollectsIt() {
    SnapshotFixture first = shared(1, 0);
    S3SnapshotStore old = bed.open(where);
    first.storeContent(old);
    S3SnapshotStore leader = bed.open(where);
    // a chunk object no snapshot uses, as an upload of an aborted snapshot leaves it
    ContentChunk unused = shared(2, 0).contentMeta("a").getContent(0);
    bed.putRaw(
        where.prefix()
            + "/chunks/"
            + HexFormat.of().formatHex(unused.getSha256().toByteArray())
            + "-"
            + unused.getLength()
            + "-"
            + HexFormat.of().toHexDigits(unused.getCrc32C()),
        new byte[unused.getLength()]);
    assertThat(stored()).contains(unused.getSha256());

    assertThatThrownBy(old::sweepLeftovers).isInstanceOf(FencedException.class);
    assertThat(stored()).as("the fenced store deleted nothing").contains(unused.getSha256());

    leader.sweepLeftovers();
    assertThat(leader.contentChunksCollectedOnOpen()).isEqualTo(1);
    assertThat(stored()).isEqualTo(hashesOf(first));
    assertReadsBack(leader, first);
  }
}
