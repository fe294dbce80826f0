package io.cutpoint.ops.demo;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * What each account captured for each snapshot, kept across worker replacements so a cut can be
 * checked after the worker that recorded it crashed. Bounded per worker.
 */
public final class CaptureLog {

  private static final int KEEP_PER_WORKER = 256;

  private final Map<String, ConcurrentSkipListMap<Long, byte[]>> byWorker =
      new ConcurrentHashMap<>();

  public void record(String workerId, long snapshotId, byte[] state) {
    ConcurrentSkipListMap<Long, byte[]> m =
        byWorker.computeIfAbsent(workerId, w -> new ConcurrentSkipListMap<>());
    m.put(snapshotId, state.clone());
    while (m.size() > KEEP_PER_WORKER) {
      m.pollFirstEntry();
    }
  }

  public Optional<byte[]> get(String workerId, long snapshotId) {
    ConcurrentSkipListMap<Long, byte[]> m = byWorker.get(workerId);
    return m == null ? Optional.empty() : Optional.ofNullable(m.get(snapshotId));
  }
}
