package io.cutpoint.ops.bench.jmh;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.cutpoint.api.v1.DataMessage;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.api.v1.Marker;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Encoding (building plus serializing) and decoding of a 64-item channel {@link Frame}: 63 data
 * messages and one marker, payloads of 16 B, 128 B or 1 KiB.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FrameEncodingBenchmark {

  static final int ITEMS = 64;

  @Param({"16", "128", "1024"})
  public int payloadBytes;

  private byte[][] payloads;
  private byte[] encoded;

  @Setup
  public void setUp() {
    payloads = new byte[ITEMS][];
    for (int i = 0; i < ITEMS; i++) {
      payloads[i] = new byte[payloadBytes];
      payloads[i][0] = (byte) i;
    }
    encoded = encode();
  }

  @Benchmark
  public byte[] encode() {
    Frame.Builder f = Frame.newBuilder().setEpoch(3);
    for (int i = 0; i < ITEMS - 1; i++) {
      f.addItems(
          Item.newBuilder()
              .setPosition(1000 + i)
              .setData(
                  DataMessage.newBuilder()
                      .setSeq(900 + i)
                      .setPayload(ByteString.copyFrom(payloads[i]))));
    }
    f.addItems(
        Item.newBuilder()
            .setPosition(1000 + ITEMS - 1)
            .setMarker(Marker.newBuilder().setSnapshotId(7).setSentCount(900 + ITEMS - 2)));
    return f.build().toByteArray();
  }

  @Benchmark
  public Frame decode() throws InvalidProtocolBufferException {
    return Frame.parseFrom(encoded);
  }
}
