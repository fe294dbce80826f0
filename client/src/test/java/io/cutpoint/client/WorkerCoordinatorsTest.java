package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.client.session.CoordinatorAddresses;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Worker.Builder#coordinators}: the addresses are checked when given, with a message that
 * names what is wrong. (A worker following a real leader and standby: {@code
 * WorkerFollowsLeaderTest} in the {@code ha} module.)
 */
class WorkerCoordinatorsTest {

  private static Worker.Builder builder() {
    return Worker.builder("w").stateHandler(new NoState()).messageHandler((from, seq, p) -> {});
  }

  @Test
  void anEmptyListIsRefused() {
    assertThatThrownBy(() -> builder().coordinators(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("at least one coordinator address (HOST:PORT) is needed, got none");
    assertThatThrownBy(() -> builder().coordinators(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("at least one coordinator address (HOST:PORT) is needed, got none");
  }

  @Test
  void aBadPortOrAMissingHostIsRefusedNamingTheAddress() {
    for (String bad : List.of("a:0", "a:65536", "a:x", "a", ":7070", "a:")) {
      assertThatThrownBy(() -> builder().coordinators(List.of("b:7070", bad)))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "coordinator address must be HOST:PORT with a port 1-65535, got '" + bad + "'");
    }
  }

  @Test
  void anEmptyEntryOrATwiceListedAddressIsRefused() {
    assertThatThrownBy(() -> builder().coordinators("a:7070,,b:7070"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("empty coordinator address in 'a:7070,,b:7070' (HOST:PORT,HOST:PORT,...)");
    assertThatThrownBy(() -> builder().coordinators("a:7070, a:7070"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("coordinator address 'a:7070' is listed twice");
  }

  @Test
  void aCommaSeparatedListIsReadInOrderAndTrimmed() {
    assertThat(CoordinatorAddresses.parse("a:7070, [::1]:7071 ,c.example:7072"))
        .containsExactly("a:7070", "[::1]:7071", "c.example:7072");
  }

  @Test
  void aWorkerWithoutCoordinatorsHasNoSession() {
    try (Worker w = builder().build().start()) {
      assertThat(w.session()).isEmpty();
    }
  }
}
