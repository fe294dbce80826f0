package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ForwardingWorkerControlTest {

  @Test
  void everyMethodOfWorkerControlIsForwardedNotLeftToItsDefault() {
    List<String> notForwarded = new ArrayList<>();
    for (Method m : WorkerControl.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      try {
        ForwardingWorkerControl.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
      } catch (NoSuchMethodException e) {
        notForwarded.add(m.getName());
      }
    }
    assertThat(notForwarded).as("WorkerControl methods a wrapper would silently not pass on").isEmpty();
  }
}
