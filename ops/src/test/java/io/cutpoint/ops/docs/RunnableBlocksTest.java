package io.cutpoint.ops.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the runnable blocks of the docs are found (they are run by {@code DocCommandsIT}). */
class RunnableBlocksTest {

  @Test
  void aMarkerTakesTheBashBlockRightAfterIt() {
    List<RunnableBlocks.Block> blocks =
        RunnableBlocks.parse(
            "a.md",
            List.of(
                "text",
                "```bash",
                "not marked",
                "```",
                "prose about `<!-- runnable -->` markers",
                "<!-- runnable -->",
                "```bash",
                "echo one",
                "echo two",
                "```",
                "<!-- runnable expect=\"OK: \" -->",
                "```bash",
                "echo OK: yes",
                "```"));

    assertThat(blocks).extracting(RunnableBlocks.Block::line).containsExactly(7, 12);
    assertThat(blocks.get(0).script()).isEqualTo("echo one\necho two\n");
    assertThat(blocks.get(0).expect()).isEmpty();
    assertThat(blocks.get(1).expect()).isEqualTo("OK: ");
  }

  @Test
  void aMarkerThatMarksNothingIsAnError() {
    assertThatThrownBy(
            () ->
                RunnableBlocks.parse(
                    "a.md", List.of("<!-- runnable -->", "", "```bash", "x", "```")))
        .hasMessageContaining("a.md:1: a runnable marker must be followed by a ```bash block");
    assertThatThrownBy(
            () -> RunnableBlocks.parse("a.md", List.of("<!-- runnable -->", "```text", "x", "```")))
        .hasMessageContaining("a.md:1:");
    assertThatThrownBy(
            () -> RunnableBlocks.parse("a.md", List.of("<!-- runnable -->", "```bash", "x")))
        .hasMessageContaining("never closes");
    assertThatThrownBy(
            () ->
                RunnableBlocks.parse(
                    "a.md", List.of("<!-- runnable expect=OK -->", "```bash", "x", "```")))
        .hasMessageContaining("malformed marker");
  }

  @Test
  void theReadmeAndThePagesHaveRunnableBlocks() throws Exception {
    Path root =
        Path.of(System.getProperty("cutpoint.ops.dir", "."))
            .toAbsolutePath()
            .normalize()
            .getParent();

    List<RunnableBlocks.Block> blocks = RunnableBlocks.ofRepository(root);

    assertThat(blocks)
        .extracting(RunnableBlocks.Block::file)
        .contains("README.md", "src/site/markdown/metrics.md", "src/site/markdown/analysis.md");
  }
}
