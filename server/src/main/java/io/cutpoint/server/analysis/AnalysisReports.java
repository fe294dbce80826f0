package io.cutpoint.server.analysis;

import io.cutpoint.api.v1.AnalyzeResponse;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.ChannelSummary;
import io.cutpoint.api.v1.CutSummary;
import io.cutpoint.api.v1.DeadlockReport;
import io.cutpoint.api.v1.DeadlockSet;
import io.cutpoint.api.v1.TerminationReport;
import io.cutpoint.api.v1.WaitEdge;
import io.cutpoint.cut.ChannelId;

/** Turns a {@link CutAnalysis} into the messages of the admin API, keeping every order. */
public final class AnalysisReports {

  private AnalysisReports() {}

  public static AnalyzeResponse toResponse(long snapshotId, CutAnalysis analysis) {
    return AnalyzeResponse.newBuilder()
        .setSnapshotId(snapshotId)
        .setDeadlock(toProto(analysis.deadlock()))
        .setTermination(toProto(analysis.termination()))
        .setSummary(toProto(analysis.statistics()))
        .build();
  }

  public static DeadlockReport toProto(DeadlockVerdict verdict) {
    DeadlockReport.Builder b = DeadlockReport.newBuilder().setDeadlocked(verdict.deadlocked());
    for (Deadlock d : verdict.sets()) {
      b.addSets(toProto(d));
    }
    verdict.unblockedByInFlight().forEach(e -> b.addUnblockedByInFlight(toProto(e)));
    return b.build();
  }

  public static DeadlockSet toProto(Deadlock deadlock) {
    DeadlockSet.Builder b =
        DeadlockSet.newBuilder().addAllWorkers(deadlock.workers()).addAllCycle(deadlock.cycle());
    deadlock.edges().forEach(e -> b.addEdges(toProto(e)));
    return b.build();
  }

  public static WaitEdge toProto(WaitsFor edge) {
    return WaitEdge.newBuilder()
        .setWaiter(edge.waiter())
        .setHolder(edge.holder())
        .setResource(edge.resource())
        .build();
  }

  public static TerminationReport toProto(TerminationVerdict verdict) {
    TerminationReport.Builder b =
        TerminationReport.newBuilder()
            .setTerminated(verdict.terminated())
            .addAllActiveWorkers(verdict.activeWorkers());
    verdict.nonEmptyChannels().forEach(c -> b.addNonEmptyChannels(toProto(c)));
    return b.build();
  }

  public static CutSummary toProto(CutStatistics stats) {
    CutSummary.Builder b =
        CutSummary.newBuilder()
            .setWorkers(stats.workers())
            .setChannels(stats.channels())
            .setStateBytes(stats.stateBytes())
            .setChannelBytes(stats.channelBytes());
    for (CutModel.Channel c : stats.perChannel()) {
      b.addPerChannel(
          ChannelSummary.newBuilder()
              .setChannel(toProto(c.channel()))
              .setInFlightMessages(c.inFlightMessages())
              .setInFlightBytes(c.inFlightBytes()));
    }
    return b.build();
  }

  public static ChannelRef toProto(ChannelId channel) {
    return ChannelRef.newBuilder().setFrom(channel.from()).setTo(channel.to()).build();
  }
}
