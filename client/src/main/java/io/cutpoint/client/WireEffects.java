package io.cutpoint.client;

import io.cutpoint.client.WorkerControl.LocalSnapshotListener;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the worker core's effects over gRPC, on the worker's event thread: channel effects go
 * to the {@link ChannelSender}s and {@link InboundStream}s (requests for frames through the {@link
 * ReadGate}), snapshot outcomes to the snapshot listener (the coordinator session).
 */
final class WireEffects {

  private static final Logger log = LoggerFactory.getLogger(WireEffects.class);

  private final String workerId;
  private final Map<String, ChannelSender> senders;
  private final ReadGate gate;
  private final java.util.function.Consumer<String> deliverNext;
  private final java.util.function.ObjLongConsumer<String> ackLater;
  private volatile LocalSnapshotListener listener;

  /**
   * Effects whose frame requests pass {@code gate}; {@code deliverNext} queues the core's turn to
   * deliver the next frame read ahead on a channel behind the tasks waiting on the event thread,
   * {@code ackLater} its turn to acknowledge a channel's frames after a delay in nanoseconds.
   */
  WireEffects(
      String workerId,
      Map<String, ChannelSender> senders,
      ReadGate gate,
      java.util.function.Consumer<String> deliverNext,
      java.util.function.ObjLongConsumer<String> ackLater) {
    this.workerId = workerId;
    this.senders = senders;
    this.gate = gate;
    this.deliverNext = deliverNext;
    this.ackLater = ackLater;
  }

  void setListener(LocalSnapshotListener listener) {
    this.listener = listener;
  }

  void apply(List<WorkerEffect> effects) {
    for (int i = 0, n = effects.size(); i < n; ) {
      WorkerEffect effect = effects.get(i);
      if (effect instanceof WorkerEffect.SendData d) {
        i = appendRun(effects, i, d.to());
      } else {
        apply(effect);
        i++;
      }
    }
  }

  /**
   * Appends the data messages of {@code effects} from {@code from} on, as long as they go to {@code
   * to}, in one call to that channel; returns the index after them.
   */
  private int appendRun(List<WorkerEffect> effects, int from, String to) {
    int end = from + 1;
    while (end < effects.size()
        && effects.get(end) instanceof WorkerEffect.SendData d
        && d.to().equals(to)) {
      end++;
    }
    senders.get(to).appendData(effects.subList(from, end));
    return end;
  }

  private void apply(WorkerEffect effect) {
    if (effect instanceof WorkerEffect.Ack a) {
      ((InboundStream) a.link()).ack(a.epoch(), a.position());
    } else if (effect instanceof WorkerEffect.Request r) {
      gate.request((InboundStream) r.link(), r.frames());
    } else if (effect instanceof WorkerEffect.DeliverNext d) {
      deliverNext.accept(d.from());
    } else if (effect instanceof WorkerEffect.AckLater a) {
      ackLater.accept(a.from(), a.delayNanos());
    } else if (effect instanceof WorkerEffect.SendMarker m) {
      senders.get(m.to()).appendMarker(m.snapshotId(), m.sentCount());
    } else if (effect instanceof WorkerEffect.Refuse r) {
      ((InboundStream) r.link()).refuse(r.refusal());
    } else if (effect instanceof WorkerEffect.Close c) {
      ((InboundStream) c.link()).complete();
    } else if (effect instanceof WorkerEffect.EnterEpoch e) {
      senders.values().forEach(s -> s.startEpoch(e.epoch()));
    } else if (effect instanceof WorkerEffect.Renumber r) {
      senders.get(r.to()).renumber(r.sent());
    } else if (effect instanceof WorkerEffect.Resumed) {
      senders.values().forEach(s -> s.setHalted(false));
    } else if (effect instanceof WorkerEffect.Captured c) {
      tell(l -> l.captured(c.snapshotId(), c.state()));
    } else if (effect instanceof WorkerEffect.Dropped d) {
      tell(l -> l.dropped(d.snapshotId()));
    } else if (effect instanceof WorkerEffect.Completed c) {
      tell(l -> l.completed(c.snapshot()));
    } else if (effect instanceof WorkerEffect.Failed f) {
      tell(l -> l.failed(f.snapshotId(), f.reason()));
    } else {
      throw new IllegalArgumentException("unknown effect " + effect);
    }
  }

  private void tell(java.util.function.Consumer<LocalSnapshotListener> call) {
    LocalSnapshotListener l = listener;
    if (l != null) {
      try {
        call.accept(l);
      } catch (Exception | Error e) {
        log.error("{}: the snapshot listener failed", workerId, e);
      }
    }
  }
}
