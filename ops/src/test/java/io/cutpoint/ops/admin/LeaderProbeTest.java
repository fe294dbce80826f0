package io.cutpoint.ops.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link LeaderProbe}: which coordinators it asks, in which order, and where it stops. */
class LeaderProbeTest {

  private static final Status DOWN = Status.UNAVAILABLE.withDescription("io exception");

  private static Status pointer(String leader) {
    return Status.UNAVAILABLE.withDescription("not the leader; the leader is " + leader);
  }

  @Test
  void aStandbysPointerIsFollowedBeforeTheNextAddress() {
    List<String> asked = new ArrayList<>();
    Map<String, Status> answers = Map.of("a:1", pointer("c:3"), "b:2", DOWN, "c:3", Status.OK);
    String leader =
        LeaderProbe.find(
            List.of("a:1", "b:2", "c:3"),
            a -> {
              asked.add(a);
              return answers.get(a);
            });
    assertThat(leader).isEqualTo("c:3");
    assertThat(asked).containsExactly("a:1", "c:3");
  }

  @Test
  void anAddressThatIsDownOrHasNoLeaderToNameMovesToTheNextOne() {
    List<String> asked = new ArrayList<>();
    Map<String, Status> answers =
        Map.of(
            "a:1",
            DOWN,
            "b:2",
            Status.UNAVAILABLE.withDescription("not the leader; no leader is elected yet"),
            "c:3",
            Status.PERMISSION_DENIED.withDescription("bad token"));
    String leader =
        LeaderProbe.find(
            List.of("a:1", "b:2", "c:3"),
            a -> {
              asked.add(a);
              return answers.get(a);
            });
    assertThat(leader).as("any answer but UNAVAILABLE comes from the leader").isEqualTo("c:3");
    assertThat(asked).containsExactly("a:1", "b:2", "c:3");
  }

  @Test
  void whenNoneLeadsTheLastRefusalIsThrownNamingTheList() {
    assertThatThrownBy(() -> LeaderProbe.find(List.of("a:1", "b:2"), a -> pointer(a)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo(
                      "no coordinator of a:1,b:2 leads; the last answer: "
                          + "not the leader; the leader is a:1");
            });
  }
}
