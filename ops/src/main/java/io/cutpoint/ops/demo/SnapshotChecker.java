package io.cutpoint.ops.demo;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.GetChannelStateRequest;
import io.cutpoint.api.v1.GetChannelStateResponse;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * Downloads a committed snapshot of the bank and checks that it conserves money: the manifest and
 * the recorded channel messages through the Admin service, each worker's state from a {@link
 * StateSource}.
 */
public final class SnapshotChecker {

  /** Where the stored state bytes of a worker's piece come from. */
  public interface StateSource {
    /**
     * @throws IllegalStateException when the state cannot be had or differs from what was stored
     */
    byte[] state(SnapshotManifest manifest, WorkerPiece piece);
  }

  /** Reads states straight from the coordinator's store (the embedded demo). */
  public static StateSource fromStore(SnapshotStore store) {
    return (m, piece) -> {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      store.readState(m.getSnapshotId(), piece.getWorkerId(), out::writeBytes);
      return out.toByteArray();
    };
  }

  /**
   * Uses what the account captured, after checking its size and CRC32C against the stored piece
   * (the demo against a remote coordinator, which serves states only to their own workers).
   */
  public static StateSource fromCaptures(CaptureLog captures) {
    return (m, piece) -> {
      byte[] state =
          captures
              .get(piece.getWorkerId(), m.getSnapshotId())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          piece.getWorkerId()
                              + " never captured a state for snapshot "
                              + m.getSnapshotId()));
      CRC32C crc = new CRC32C();
      crc.update(state);
      if (state.length != piece.getMeta().getStateBytes()
          || (int) crc.getValue() != piece.getMeta().getStateCrc32C()) {
        throw new IllegalStateException(
            "stored state of "
                + piece.getWorkerId()
                + " differs from what it captured (size "
                + piece.getMeta().getStateBytes()
                + " vs "
                + state.length
                + ")");
      }
      return state;
    };
  }

  /** How a check ended. */
  public enum Kind {
    /** Balances plus transfers in flight equal the bank's money. */
    CONSERVED,
    /** They do not, or a piece is missing or corrupt. */
    VIOLATED,
    /** The snapshot does not cover every account (taken while workers were joining). */
    PARTIAL,
    /** The snapshot was deleted before it could be checked. */
    GONE
  }

  /** The outcome of checking one snapshot. */
  public record Outcome(
      long snapshotId,
      Kind kind,
      ConservationCheck.Result result,
      String detail,
      SnapshotManifest manifest) {}

  private final Supplier<AdminGrpc.AdminBlockingStub> admin;
  private final StateSource states;
  private final Set<String> accounts;
  private final long expectedTotal;

  public SnapshotChecker(
      Supplier<AdminGrpc.AdminBlockingStub> admin,
      StateSource states,
      Set<String> accounts,
      long expectedTotal) {
    this.admin = admin;
    this.states = states;
    this.accounts = new TreeSet<>(accounts);
    this.expectedTotal = expectedTotal;
  }

  /** A stub of the Admin service the checker uses. */
  public AdminGrpc.AdminBlockingStub admin() {
    return admin.get();
  }

  public Outcome check(long snapshotId) {
    SnapshotManifest m;
    try {
      m =
          admin
              .get()
              .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(snapshotId).build())
              .getManifest();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return new Outcome(snapshotId, Kind.GONE, null, "deleted before it could be checked", null);
      }
      throw e;
    }
    Set<String> covered = new TreeSet<>();
    for (WorkerDecl w : m.getTopology().getWorkersList()) {
      covered.add(w.getWorkerId());
    }
    if (!covered.equals(accounts)) {
      return new Outcome(
          snapshotId, Kind.PARTIAL, null, "covers " + covered + ", not every account", m);
    }
    Map<String, Long> balances = new TreeMap<>();
    for (WorkerPiece piece : m.getPiecesList()) {
      try {
        balances.put(piece.getWorkerId(), BankAccount.decodeBalance(states.state(m, piece)));
      } catch (RuntimeException e) {
        if (gone(snapshotId)) { // retention deleted it while it was read
          return new Outcome(
              snapshotId, Kind.GONE, null, "deleted before it could be checked", null);
        }
        return new Outcome(
            snapshotId,
            Kind.VIOLATED,
            null,
            "the state of " + piece.getWorkerId() + " cannot be read: " + e,
            m);
      }
    }
    if (!balances.keySet().equals(accounts)) {
      return new Outcome(
          snapshotId,
          Kind.VIOLATED,
          null,
          "pieces of " + balances.keySet() + " only, expected " + accounts,
          m);
    }
    Map<String, List<Long>> inFlight = new TreeMap<>();
    for (WorkerDecl w : m.getTopology().getWorkersList()) {
      for (String to : w.getOutgoingList()) {
        ChannelRef c = ChannelRef.newBuilder().setFrom(w.getWorkerId()).setTo(to).build();
        inFlight.put(w.getWorkerId() + "->" + to, amounts(snapshotId, c));
      }
    }
    ConservationCheck.Result r = ConservationCheck.check(balances, inFlight, expectedTotal);
    return new Outcome(
        snapshotId, r.conserved() ? Kind.CONSERVED : Kind.VIOLATED, r, r.describe(), m);
  }

  private boolean gone(long snapshotId) {
    try {
      admin.get().getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(snapshotId).build());
      return false;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode() == Status.Code.NOT_FOUND;
    }
  }

  private List<Long> amounts(long snapshotId, ChannelRef c) {
    List<Long> amounts = new ArrayList<>();
    String token = "";
    do {
      GetChannelStateResponse page =
          admin
              .get()
              .getChannelState(
                  GetChannelStateRequest.newBuilder()
                      .setSnapshotId(snapshotId)
                      .setChannel(c)
                      .setPageSize(10_000)
                      .setPageToken(token)
                      .build());
      for (RecordedMessage r : page.getMessagesList()) {
        amounts.add(BankAccount.decodeAmount(r.getPayload().toByteArray()));
      }
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    return amounts;
  }
}
