package io.cutpoint.ops.bench.jmh;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.engine.EngineOptions;
import io.cutpoint.client.engine.EngineOutput;
import io.cutpoint.client.engine.SnapshotEngine;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The engine's per-message cost: {@code send} (numbering) and {@code onData} (sequence check,
 * recording when a snapshot is open, delivery) on a worker with 31 peers each way, no snapshot in
 * flight (the steady state between snapshots).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EngineBenchmark {

  private SnapshotEngine engine;
  private final byte[] payload = new byte[128];
  private long seq;
  private Blackhole sink;

  @Setup
  public void setUp(Blackhole bh) {
    sink = bh;
    List<String> peers = new java.util.ArrayList<>();
    for (int i = 2; i <= 32; i++) {
      peers.add("w" + i);
    }
    engine =
        new SnapshotEngine(
            "w1",
            peers,
            peers,
            id -> CapturedState.of(new byte[0]),
            new EngineOutput() {
              @Override
              public void sendMarker(String to, long snapshotId, long sentCount) {}

              @Override
              public void deliver(String from, long s, byte[] p) {
                sink.consume(p);
              }

              @Override
              public void completed(CompletedLocalSnapshot snapshot) {}

              @Override
              public void failed(long snapshotId, String reason) {}
            },
            EngineOptions.defaults());
  }

  @Benchmark
  public long send() {
    return engine.send("w17", payload);
  }

  @Benchmark
  public void onData() {
    engine.onData("w17", ++seq, payload);
  }
}
