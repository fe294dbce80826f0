package io.cutpoint.client;

/**
 * A worker's counters since it started (they continue across rollbacks).
 *
 * @param messagesSent data messages the application sent
 * @param messagesReceived data messages delivered to the application (replayed ones included)
 * @param markersSent markers put on outgoing channels
 * @param markersReceived markers taken from incoming channels
 * @param markersAhead markers taken as they were read, with data queued before them (that data is
 *     the channel's state; see {@code Worker.Builder.markersAhead})
 * @param framesSent frames written to channel streams (resends included)
 * @param framesResent frames written again after a reconnect
 * @param reconnects channel streams opened again after a failure
 * @param snapshotsCompleted local snapshots completed
 * @param snapshotsFailed local snapshots failed or aborted
 */
public record WorkerCounters(
    long messagesSent,
    long messagesReceived,
    long markersSent,
    long markersReceived,
    long markersAhead,
    long framesSent,
    long framesResent,
    long reconnects,
    long snapshotsCompleted,
    long snapshotsFailed) {}
