package io.cutpoint.cut;

import java.util.Arrays;

/**
 * A data message recorded as in transit on a channel: its sequence number on that channel and the
 * application's bytes. The array is not copied; callers must not change it afterwards.
 */
public record InTransitMessage(long seq, byte[] payload) {

  public InTransitMessage {
    if (seq < 1) {
      throw new IllegalArgumentException("sequence numbers start at 1, got " + seq);
    }
    if (payload == null) {
      throw new IllegalArgumentException("payload must not be null");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InTransitMessage m && m.seq == seq && Arrays.equals(m.payload, payload);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(seq) * 31 + Arrays.hashCode(payload);
  }

  @Override
  public String toString() {
    return "#" + seq + "(" + payload.length + " B)";
  }
}
