package io.cutpoint.client.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** An {@link EngineOutput} that keeps everything the engine asked for, in order. */
public final class RecordingOutput implements EngineOutput {

  /** One instruction of the engine. */
  public sealed interface Event {}

  public record MarkerSent(String to, long snapshotId, long sentCount) implements Event {}

  public record Delivered(String from, long seq, byte[] payload) implements Event {}

  public record Completed(CompletedLocalSnapshot snapshot) implements Event {}

  public record Failed(long snapshotId, String reason) implements Event {}

  private final List<Event> events = new ArrayList<>();
  private Consumer<Delivered> onDeliver = d -> {};

  /** Runs {@code handler} on every delivery (an application answering messages). */
  public RecordingOutput onDeliver(Consumer<Delivered> handler) {
    this.onDeliver = handler;
    return this;
  }

  @Override
  public void sendMarker(String to, long snapshotId, long sentCount) {
    events.add(new MarkerSent(to, snapshotId, sentCount));
  }

  @Override
  public void deliver(String from, long seq, byte[] payload) {
    Delivered d = new Delivered(from, seq, payload);
    events.add(d);
    onDeliver.accept(d);
  }

  @Override
  public void completed(CompletedLocalSnapshot snapshot) {
    events.add(new Completed(snapshot));
  }

  @Override
  public void failed(long snapshotId, String reason) {
    events.add(new Failed(snapshotId, reason));
  }

  public List<Event> events() {
    return List.copyOf(events);
  }

  /** Events of one type, in order. */
  public <T extends Event> List<T> of(Class<T> type) {
    return events.stream().filter(type::isInstance).map(type::cast).toList();
  }

  public List<MarkerSent> markers() {
    return of(MarkerSent.class);
  }

  public List<CompletedLocalSnapshot> completed() {
    return of(Completed.class).stream().map(Completed::snapshot).toList();
  }

  public List<Failed> failures() {
    return of(Failed.class);
  }

  public void clear() {
    events.clear();
  }
}
