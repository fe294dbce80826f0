package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HugePagesTest {
  @TempDir Path tmp;

  @Test
  void theKernelsChoiceIsTheBracketedWord() throws Exception {
    Path file = tmp.resolve("enabled");
    Files.writeString(file, "always [madvise] never\n");
    assertThat(HugePages.systemMode(file)).isEqualTo("madvise");
    Files.writeString(file, "[always] madvise never\n");
    assertThat(HugePages.systemMode(file)).isEqualTo("always");
    assertThat(HugePages.systemMode(tmp.resolve("missing"))).isEqualTo("unknown");
  }

  @Test
  void theHeapGetsThemWhenTheKernelGivesThemToAllOrToAJvmThatAsks() {
    assertThat(new HugePages("always", false).used()).isTrue();
    assertThat(new HugePages("madvise", true).used()).isTrue();
    assertThat(new HugePages("madvise", false).used()).isFalse();
    assertThat(new HugePages("never", true).used()).isFalse();
  }

  @Test
  void aJvmThatCouldAskAndDoesNotIsToldHow() {
    assertThat(new HugePages("madvise", false).line())
        .contains("--no-fork", "java -XX:+UseTransparentHugePages -jar");
    assertThat(new HugePages("madvise", true).line()).endsWith("the heap uses them");
    assertThat(new HugePages("never", false).line()).isEqualTo("transparent huge pages: never");
  }
}
