package io.cutpoint.ops.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.RollbackResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

class FormatTest {

  @Test
  void tablePadsColumnsAndRightAlignsNumberColumns() {
    String out =
        new Table(">ID", "STATUS", ">SIZE")
            .row(7, "complete", "1.5 KiB")
            .row(12, "failed", "0 B")
            .render();
    assertThat(out)
        .isEqualTo(
            "ID  STATUS       SIZE\n" + " 7  complete  1.5 KiB\n" + "12  failed        0 B\n");
  }

  @Test
  void tableRejectsRowsOfTheWrongWidth() {
    assertThatThrownBy(() -> new Table("A", "B").row("only one"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void humanSizesDurationsAndTimes() {
    assertThat(Human.bytes(0)).isEqualTo("0 B");
    assertThat(Human.bytes(1536)).isEqualTo("1.5 KiB");
    assertThat(Human.bytes(64L << 20)).isEqualTo("64.0 MiB");
    assertThat(Human.micros(0)).isEmpty();
    assertThat(Human.micros(850)).isEqualTo("850us");
    assertThat(Human.micros(12_345)).isEqualTo("12.3ms");
    assertThat(Human.micros(1_520_000)).isEqualTo("1.52s");
    assertThat(Human.micros(125_000_000)).isEqualTo("2m05s");
    assertThat(Human.time(0)).isEmpty();
    assertThat(Human.time(86_400_000L)).isEqualTo("1970-01-02 00:00:00Z");
    assertThat(Human.ago(1000, 4500)).isEqualTo("3s ago");
  }

  @Test
  void payloadsPrintAsTextWhenPrintableElseHexAndAreCut() {
    assertThat(Human.payload("hello".getBytes(), 20)).isEqualTo("\"hello\"");
    assertThat(Human.payload(new byte[] {0, 1, (byte) 0xff}, 20)).isEqualTo("0x0001ff");
    assertThat(Human.payload(new byte[40], 10)).hasSize(10).endsWith("...");
  }

  @Test
  void handBuiltJsonEscapesAndNests() {
    String json =
        Json.object()
            .put("name", "a\"b\\c\nd")
            .put("n", 3L)
            .put("ok", true)
            .put("ratio", 0.5)
            .put("third", 1 / 3.0)
            .put("whole", 2.0)
            .put("nan", Double.NaN)
            .put("none", null)
            .put("list", List.of(1, "x", Json.object().put("k", "v")))
            .put("tree", Json.tree(ChannelRef.newBuilder().setFrom("a").build()))
            .toString();
    assertThat(json)
        .isEqualTo(
            "{\"name\":\"a\\\"b\\\\c\\nd\",\"n\":3,\"ok\":true,\"ratio\":0.5,"
                + "\"third\":0.333,\"whole\":2,\"nan\":null,\"none\":null,\"list\":[1,\"x\",{\"k\":\"v\"}],"
                + "\"tree\":{\"from\":\"a\",\"to\":\"\"}}");
  }

  @Test
  void idsAreStringsAsJsonFormatPrintsSixtyFourBitIntegers() {
    assertThat(Json.object().id("snapshot_id", 7).id("epoch", 2).put("messages", 3L).toString())
        .isEqualTo("{\"snapshot_id\":\"7\",\"epoch\":\"2\",\"messages\":3}");
    assertThat(Json.line(RollbackResponse.newBuilder().setSnapshotId(7).setEpoch(2).build()))
        .contains("\"snapshot_id\":\"7\"", "\"epoch\":\"2\"");
  }

  @Test
  void protobufJsonUsesProtoFieldNamesOnOneLine() {
    String line = Json.line(ChannelRef.newBuilder().setFrom("a").setTo("b").build());
    assertThat(line).isEqualTo("{\"from\":\"a\",\"to\":\"b\"}");
    assertThat(Json.line(ChannelRef.getDefaultInstance())).isEqualTo("{\"from\":\"\",\"to\":\"\"}");
  }
}
