package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.client.session.LeaderChannel;
import io.grpc.ChannelCredentials;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Finds which of a cluster's coordinators leads, for the admin commands ({@code --coordinators}):
 * it asks each in turn for the cluster view, follows a standby's pointer ("not the leader; the
 * leader is HOST:PORT"), and stops at the first coordinator that answers with anything but
 * UNAVAILABLE (a standby refuses every Admin call with UNAVAILABLE, so any other answer, a refused
 * token included, comes from the leader).
 */
public final class LeaderProbe {
  private LeaderProbe() {}

  /**
   * The leader's address.
   *
   * @throws StatusRuntimeException the last UNAVAILABLE when no coordinator leads or answers
   */
  public static String find(
      List<String> addresses, Duration deadline, ChannelCredentials credentials, String token) {
    return find(
        addresses,
        a -> {
          try (AdminClient c = new AdminClient(a, deadline, credentials, token)) {
            c.stub().getCluster(GetClusterRequest.getDefaultInstance());
            return Status.OK;
          } catch (StatusRuntimeException e) {
            return e.getStatus();
          }
        });
  }

  /** As above, with {@code ask} calling one coordinator. */
  static String find(List<String> addresses, Function<String, Status> ask) {
    Status last = Status.UNAVAILABLE.withDescription("no coordinator was asked");
    int next = 0;
    String pointer = null;
    for (int hop = 0; hop < 2 * addresses.size() + 1; hop++) {
      String a;
      if (pointer != null) {
        a = pointer;
        pointer = null;
      } else {
        a = addresses.get(next);
        next = (next + 1) % addresses.size();
      }
      Status s = ask.apply(a);
      if (s.getCode() != Status.Code.UNAVAILABLE) {
        return a;
      }
      last = s;
      Optional<String> leader = LeaderChannel.leaderIn(s.getDescription());
      if (leader.isPresent() && !leader.get().equals(a)) {
        pointer = leader.get();
      }
    }
    throw last.withDescription(
            "no coordinator of "
                + String.join(",", addresses)
                + " leads; the last answer: "
                + (last.getDescription() == null ? last.getCode() : last.getDescription()))
        .asRuntimeException();
  }
}
