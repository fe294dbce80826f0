package io.cutpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** A join's log line names a few peers and counts the rest: a worker may declare thousands. */
class PeerListLogTest {

  @Test
  void aLongPeerListIsCutAndCounted() {
    List<String> many = IntStream.range(0, 5_000).mapToObj(i -> "peer-" + i).toList();
    String brief = CoordinatorContext.brief(many);
    assertThat(brief).startsWith("[peer-0, peer-1,").endsWith("peer-7, ... (5000 in all)]");
    assertThat(brief.length()).isLessThan(200);
    assertThat(CoordinatorContext.brief(List.of("a", "b"))).isEqualTo("[a, b]");
  }
}
