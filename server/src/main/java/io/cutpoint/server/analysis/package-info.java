/**
 * Stable properties of a consistent cut: deadlock (a cycle in the global wait-for graph, with the
 * messages recorded in transit taken into account) and termination (every worker passive, every
 * channel empty), plus a summary of the cut.
 *
 * <p>{@link io.cutpoint.server.analysis.CutModel} is the input the pure detectors work on; {@link
 * io.cutpoint.server.analysis.SnapshotAnalyzer} builds it from a stored snapshot and answers with
 * the {@code AnalyzeResponse} of the admin API. The rules and why a consistent cut makes them sound
 * are in {@code src/site/markdown/analysis.md}.
 */
package io.cutpoint.server.analysis;
