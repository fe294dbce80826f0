package io.cutpoint.client;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;

/**
 * What the worker core asks its surroundings to do, in order. The transport carries out the channel
 * effects, the session the snapshot outcomes; the simulator does both over its own network.
 */
sealed interface WorkerEffect {

  /**
   * Tell the sender on {@code link} that positions up to {@code position} of {@code epoch} arrived.
   */
  record Ack(InboundLink link, long epoch, long position) implements WorkerEffect {}

  /**
   * Call {@code WorkerCore.ackDue(from)} on the core's thread {@code delayNanos} from now: frames
   * that did not ask for an ack at once are acknowledged then, together.
   */
  record AckLater(String from, long delayNanos) implements WorkerEffect {}

  /**
   * Call {@code WorkerCore.deliverNext(from)} on the core's thread once what is queued there ran,
   * so that frames arriving meanwhile are read ahead of the application.
   */
  record DeliverNext(String from) implements WorkerEffect {}

  /** Let {@code frames} more frames come on {@code link} (inbound flow control). */
  record Request(InboundLink link, int frames) implements WorkerEffect {}

  /** End {@code link} with an error; its sender resends on a new stream. */
  record Refuse(InboundLink link, Refusal refusal) implements WorkerEffect {}

  /** End {@code link} normally (its sender went away). */
  record Close(InboundLink link) implements WorkerEffect {}

  /** Put data message {@code seq} on the channel to {@code to} (room was reserved for it). */
  @SuppressWarnings("ArrayRecordComponent") // the payload is handed over, never compared
  record SendData(String to, long seq, byte[] payload) implements WorkerEffect {}

  /** Put a marker on the channel to {@code to}, after everything sent before. */
  record SendMarker(String to, long snapshotId, long sentCount) implements WorkerEffect {}

  /** Every outgoing channel forgets its old epoch and starts {@code epoch} at position 1. */
  record EnterEpoch(long epoch) implements WorkerEffect {}

  /**
   * The engine's count of messages sent to {@code to} is now {@code sent} (a new epoch or a
   * restore): application sends not numbered yet are dropped, the next one is {@code sent + 1}.
   */
  record Renumber(String to, long sent) implements WorkerEffect {}

  /** The rollback ended: outgoing channels take application sends again. */
  record Resumed(long epoch) implements WorkerEffect {}

  /** This worker captured its state for a snapshot; it completes, fails or is dropped later. */
  record Captured(long snapshotId, CapturedState state) implements WorkerEffect {}

  /** This worker stopped a snapshot on an order (abort, halt, restore); nothing follows. */
  record Dropped(long snapshotId) implements WorkerEffect {}

  /** This worker's piece of a snapshot is complete. */
  record Completed(CompletedLocalSnapshot snapshot) implements WorkerEffect {}

  /** This worker gave up on a snapshot. */
  record Failed(long snapshotId, String reason) implements WorkerEffect {}
}
