package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.cut.LocalSnapshot;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ForwardingWorkerControlTest {

  /** One call as the delegate saw it, and what it answered. */
  private record Call(String method, List<Object> args) {}

  /**
   * Calls every method of WorkerControl (defaults included) on a ForwardingWorkerControl that
   * overrides nothing, over a delegate that records each call and answers with a value of its own:
   * each call must reach the delegate once, with the same arguments, and return the delegate's
   * answer. The one exception is {@code eventLoop()}, which a wrapper keeps to itself (null: its
   * session gets a thread of its own, as the wrapper's overrides may wait for the worker's loop).
   */
  @Test
  void everyMethodOfWorkerControlIsPassedOnWithItsArgumentsAndResult() throws Exception {
    List<Call> calls = new ArrayList<>();
    WorkerControl delegate =
        (WorkerControl)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {WorkerControl.class},
                (proxy, method, args) -> {
                  calls.add(
                      new Call(method.getName(), args == null ? List.of() : Arrays.asList(args)));
                  return answer(method);
                });
    WorkerControl forwarding = new ForwardingWorkerControl(delegate) {};

    List<String> notForwarded = new ArrayList<>();
    int checked = 0;
    for (Method m : WorkerControl.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      if (m.getName().equals("eventLoop")) {
        calls.clear();
        assertThat(forwarding.eventLoop()).as("a wrapper's event loop").isNull();
        assertThat(calls).as("eventLoop is not passed on").isEmpty();
        checked++;
        continue;
      }
      calls.clear();
      Object[] args =
          Arrays.stream(m.getParameterTypes()).map(ForwardingWorkerControlTest::argument).toArray();
      Object result = m.invoke(forwarding, args);
      checked++;
      if (!calls.equals(List.of(new Call(m.getName(), Arrays.asList(args))))) {
        notForwarded.add(m.getName() + " reached the delegate as " + calls);
      } else if (m.getReturnType() != void.class && !answer(m).equals(result)) {
        notForwarded.add(m.getName() + " returned " + result + ", not the delegate's " + answer(m));
      }
    }
    assertThat(checked)
        .isEqualTo(
            (int)
                Arrays.stream(WorkerControl.class.getMethods())
                    .filter(m -> !Modifier.isStatic(m.getModifiers()))
                    .count())
        .isGreaterThanOrEqualTo(14);
    assertThat(notForwarded).as("WorkerControl calls a wrapper would not pass on").isEmpty();
  }

  /**
   * A value no default or constant would produce, so that a result that did not come from the
   * delegate shows.
   */
  private static Object answer(Method m) {
    Class<?> type = m.getReturnType();
    if (type == void.class) {
      return null;
    }
    if (type == String.class) {
      return "answer-of-" + m.getName();
    }
    if (type == long.class) {
      return 7_000L + m.getName().length();
    }
    if (type == boolean.class) {
      return true; // fresh() defaults to false
    }
    if (type == java.util.SortedSet.class) {
      return new TreeSet<>(List.of("answer-of-" + m.getName()));
    }
    if (type == io.grpc.ManagedChannelBuilder.class) {
      return BUILDER;
    }
    if (type == java.util.Optional.class) {
      return java.util.Optional.of(java.nio.file.Path.of("answer-of-" + m.getName())); // not empty
    }
    throw new AssertionError("no answer for " + m);
  }

  private static final io.grpc.ChannelCredentials CREDENTIALS =
      io.grpc.InsecureChannelCredentials.create();

  /** The delegate's channel builder: one instance, so that the wrapper's answer can be compared. */
  private static final io.grpc.ManagedChannelBuilder<?> BUILDER =
      io.grpc.Grpc.newChannelBuilder("answer-of-coordinatorChannel:1", CREDENTIALS);

  private static Object argument(Class<?> type) {
    if (type == io.grpc.ChannelCredentials.class) {
      return CREDENTIALS;
    }
    if (type == String.class) {
      return "coordinator-41:7070";
    }
    if (type == long.class) {
      return 41L;
    }
    if (type == Map.class) {
      return Map.of("p", "host:1");
    }
    if (type == java.util.Set.class) {
      return java.util.Set.of(7L);
    }
    if (type == byte[].class) {
      return new byte[] {1, 2, 3};
    }
    if (type == LocalSnapshot.class) {
      return new LocalSnapshot(41, "w", new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), null);
    }
    if (type == WorkerControl.LocalSnapshotListener.class) {
      return new WorkerControl.LocalSnapshotListener() {
        @Override
        public void completed(io.cutpoint.client.engine.CompletedLocalSnapshot snapshot) {}

        @Override
        public void failed(long snapshotId, String reason) {}
      };
    }
    throw new AssertionError("no argument for " + type);
  }
}
