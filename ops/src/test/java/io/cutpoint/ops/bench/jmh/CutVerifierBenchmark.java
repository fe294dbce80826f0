package io.cutpoint.ops.bench.jmh;

import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.CutViolation;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link CutVerifier#verify} on a consistent cut of a 32-worker full mesh (992 channels), w1 the
 * initiator, every other worker recorded on w1's marker, two messages in flight on every channel
 * not from w1.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CutVerifierBenchmark {

  static final int WORKERS = 32;

  private Cut cut;

  @Setup
  public void setUp() {
    cut = meshCut(WORKERS);
    List<CutViolation> v = CutVerifier.verify(cut);
    if (!v.isEmpty()) {
      throw new IllegalStateException("the benchmark cut must be consistent: " + v);
    }
  }

  /** A consistent cut: 100 sent per channel; 98 received where two are recorded in flight. */
  static Cut meshCut(int n) {
    SortedSet<String> workers = new TreeSet<>();
    for (int i = 1; i <= n; i++) {
      workers.add("w" + i);
    }
    SortedSet<ChannelId> channels = new TreeSet<>();
    List<LocalSnapshot> pieces = new ArrayList<>();
    for (String w : workers) {
      SortedMap<String, Long> sent = new TreeMap<>();
      SortedMap<String, Long> received = new TreeMap<>();
      SortedMap<String, List<InTransitMessage>> recordings = new TreeMap<>();
      String first = w.equals("w1") ? null : "w1";
      for (String peer : workers) {
        if (peer.equals(w)) {
          continue;
        }
        channels.add(ChannelId.of(w, peer));
        sent.put(peer, 100L);
        if (peer.equals(first)) {
          received.put(peer, 100L);
          recordings.put(peer, List.of());
        } else {
          received.put(peer, 98L);
          recordings.put(
              peer,
              List.of(
                  new InTransitMessage(99, new byte[16]), new InTransitMessage(100, new byte[16])));
        }
      }
      pieces.add(new LocalSnapshot(1, w, sent, received, recordings, first));
    }
    return Cut.of(1, workers, channels, pieces);
  }

  @Benchmark
  public List<CutViolation> verify() {
    return CutVerifier.verify(cut);
  }
}
