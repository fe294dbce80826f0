package io.cutpoint.ops.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** `cutpoint list` and `show` mark a snapshot whose stored bytes are damaged. */
class DamagedSnapshotViewTest {
  private final SnapshotManifest damaged =
      SnapshotManifest.newBuilder()
          .setSnapshotId(7)
          .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
          .setDamage("snapshot 7, worker b, state chunk 1: CRC32C mismatch")
          .build();
  private final SnapshotManifest intact =
      SnapshotManifest.newBuilder()
          .setSnapshotId(6)
          .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
          .build();
  private final SnapshotManifest unreadable =
      SnapshotManifest.newBuilder()
          .setSnapshotId(5)
          .setDamage("manifest unreadable: block checksum mismatch")
          .build();

  @Test
  void theListMarksDamagedSnapshotsWithWhatIsDamaged() {
    String table = SnapshotViews.listTable(List.of(damaged, intact, unreadable)).render();
    List<String> rows = table.lines().toList();
    assertThat(rows.get(1)).contains("complete DAMAGED").contains("state chunk 1: CRC32C");
    assertThat(rows.get(2)).contains("complete").doesNotContain("DAMAGED");
    assertThat(rows.get(3)).contains("DAMAGED").contains("manifest unreadable");
  }

  @Test
  void showSaysItCannotBeRestored() {
    assertThat(SnapshotViews.details(damaged))
        .contains("complete DAMAGED")
        .contains("cannot be restored");
    assertThat(SnapshotViews.details(intact)).doesNotContain("damage");
  }
}
