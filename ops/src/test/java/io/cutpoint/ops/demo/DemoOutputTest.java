package io.cutpoint.ops.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonParser;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoOutputTest {

  private static final DemoEvent SNAPSHOT =
      new DemoEvent(
          "snapshot",
          1_000,
          "snapshot 3 (12.0ms) conserved: 4000 = 3990 in accounts + 10 in flight (1 transfer)",
          Json.object().put("event", "snapshot").put("at_ms", 1_000).id("snapshot_id", 3),
          false);
  private static final DemoEvent VIOLATION =
      new DemoEvent(
          "violation",
          2_000,
          "snapshot 4 violates conservation",
          Json.object().put("event", "violation").id("snapshot_id", 4),
          true);

  @Test
  void jsonPrintsOneParsableObjectPerEventThenTheSummary() {
    StringWriter s = new StringWriter();
    DemoOutput out = DemoOutput.json(new PrintWriter(s));
    out.event(SNAPSHOT);
    out.event(VIOLATION);
    out.summary("ignored for machines", Json.object().put("event", "summary").put("ok", false));
    List<String> lines = s.toString().lines().toList();
    assertThat(lines).hasSize(3);
    for (String l : lines) {
      assertThat(JsonParser.parseString(l).isJsonObject()).as(l).isTrue();
    }
    assertThat(lines.get(2)).isEqualTo("{\"event\":\"summary\",\"ok\":false}");
  }

  @Test
  void linesShowTimeTypeAndMarkViolations() {
    StringWriter s = new StringWriter();
    DemoOutput out = DemoOutput.lines(new PrintWriter(s));
    out.event(SNAPSHOT);
    out.event(VIOLATION);
    out.summary("Summary: ok\n", Json.object());
    assertThat(s.toString())
        .isEqualTo(
            "00:00:01.000  snapshot  snapshot 3 (12.0ms) conserved: 4000 = 3990 in accounts + 10 in flight (1 transfer)\n"
                + "00:00:02.000  violation !! snapshot 4 violates conservation\n"
                + "Summary: ok\n");
  }

  @Test
  void liveViewRedrawsInPlaceAndRepeatsViolationsAtTheEnd() {
    StringWriter s = new StringWriter();
    DemoOutput out = DemoOutput.live(new PrintWriter(s), () -> List.of("status line"));
    out.event(VIOLATION);
    await().atMost(Duration.ofSeconds(5)).until(() -> s.toString().contains("\033[3A"));
    out.summary("Summary: bad\n", Json.object());
    String text = s.toString();
    assertThat(text).contains("status line\033[K\n").contains("\033[J");
    assertThat(text)
        .endsWith("00:00:02.000  violation !! snapshot 4 violates conservation\n\nSummary: bad\n");
  }
}
