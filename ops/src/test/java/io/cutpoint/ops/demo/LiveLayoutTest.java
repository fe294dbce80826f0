package io.cutpoint.ops.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LiveLayoutTest {

  private static final List<String> STATUS =
      List.of(
          "cutpoint demo  4 workers (ring)  coordinator in-process  12s / 20s",
          "accounts  bank-1=1000 bank-2=1000 bank-3=1000 bank-4=1000 bank-5=1000 bank-6=1000 bank-7=1000",
          "transfers 1234",
          "snapshots 12 complete, 12 conserved, 0 violated, 0 aborted, 0 failed   p50 3.1ms  p99 9.9ms",
          "crashes 1  rollbacks 1  recoveries ok 1",
          "last check: snapshot 12 conserved");

  private static List<String> events(int n) {
    List<String> e = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      e.add(
          "12:00:00.000  snapshot  snapshot "
              + i
              + " (3.0ms) conserved: 4000 = 3990 in accounts + 10 in flight");
    }
    return e;
  }

  @Test
  void at80x24NoLineWrapsAndTheViewLeavesTheLastRowFree() {
    List<String> lines = LiveLayout.lines(STATUS, events(100), new TerminalSize(80, 24));
    assertThat(lines).hasSize(23).allSatisfy(l -> assertThat(l.length()).isLessThan(80));
    assertThat(lines.subList(0, 6)).allSatisfy(l -> assertThat(l).isNotEmpty());
    assertThat(lines.get(6)).isEmpty();
    assertThat(lines.get(22)).as("the newest event is last").contains("snapshot 100 ");
    assertThat(lines.get(7)).contains("snapshot 85 ");
  }

  @Test
  void aTallerWiderTerminalShowsMoreEventsUncut() {
    List<String> lines = LiveLayout.lines(STATUS, events(100), new TerminalSize(200, 50));
    assertThat(lines).hasSize(49);
    assertThat(lines).containsAll(STATUS);
    assertThat(lines.get(48)).endsWith("10 in flight");
  }

  @Test
  void fewEventsTakeOnlyTheirRows() {
    assertThat(LiveLayout.lines(STATUS, events(2), new TerminalSize(80, 24))).hasSize(9);
  }

  @Test
  void aTinyTerminalKeepsTheFirstStatusLines() {
    List<String> lines = LiveLayout.lines(STATUS, events(5), new TerminalSize(20, 5));
    assertThat(lines)
        .as("clamped to 20x8: the status, no room for events")
        .hasSize(6)
        .allSatisfy(l -> assertThat(l.length()).isLessThan(20));
  }

  @Test
  void theSizeComesFromSttyOrTheEnvironment() {
    assertThat(TerminalSize.parseStty("24 80\n")).isEqualTo(new TerminalSize(80, 24));
    assertThat(TerminalSize.parseStty("0 0")).isNull();
    assertThat(TerminalSize.parseStty("")).isNull();
    assertThat(TerminalSize.fromEnvironment("132", "43")).isEqualTo(new TerminalSize(132, 43));
    assertThat(TerminalSize.fromEnvironment(null, "x")).isEqualTo(TerminalSize.DEFAULT);
  }
}
