package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerBuilder;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Every grpc-java builder method either works on Tern's builders or says, in its exception, that
 * it is Tern's, which method it is and what to do instead; targets that are not one host:port are
 * refused with a reason.
 */
class BuilderMessagesTest {

  @Test
  void everyUnsupportedChannelBuilderMethodSaysTernTheMethodAndWhatElse() throws Exception {
    List<String> unsupported = callEveryMethod(ManagedChannelBuilder.class,
        () -> TernChannelBuilder.forTarget("localhost:1"));
    // The methods Tern does not implement; a bare UnsupportedOperationException fails in callEveryMethod.
    assertThat(unsupported).doesNotContain("enableRetry", "disableRetry", "retryBufferSize", "perRpcBufferLimit");
    assertThat(unsupported).contains("maxTraceEvents");
    assertThat(unsupported).doesNotContain("addMetricSink");
    assertThat(unsupported).doesNotContain("maxRetryAttempts", "maxHedgedAttempts", "defaultServiceConfig",
        "disableServiceConfigLookUp", "defaultLoadBalancingPolicy", "setBinaryLog", "interceptWithTarget");
    assertThat(unsupported).doesNotContain("proxyDetector", "addTransportFilter");
    assertThat(unsupported).doesNotContain("nameResolverFactory");
    assertThat(unsupported).doesNotContain("keepAliveTime", "keepAliveTimeout", "keepAliveWithoutCalls");
  }

  @Test
  void everyUnsupportedServerBuilderMethodSaysTernTheMethodAndWhatElse() throws Exception {
    List<String> unsupported = callEveryMethod(ServerBuilder.class, () -> TernServerBuilder.forPort(0));
    assertThat(unsupported).doesNotContain("addMetricSink", "setBinaryLog");
    assertThat(unsupported).doesNotContain("callExecutor", "addTransportFilter");
    assertThat(unsupported).doesNotContain("keepAliveTime", "keepAliveTimeout", "permitKeepAliveTime",
        "permitKeepAliveWithoutCalls", "maxConnectionIdle", "maxConnectionAge", "maxConnectionAgeGrace");
  }

  /**
   * Calls each public or protected instance method {@code base} declares on a fresh builder, with
   * harmless arguments; returns those that threw {@link UnsupportedOperationException}, having
   * checked each one's message.
   */
  private static List<String> callEveryMethod(Class<?> base, Supplier<Object> builders) throws Exception {
    List<String> unsupported = new ArrayList<>();
    for (Method declared : base.getDeclaredMethods()) {
      int mod = declared.getModifiers();
      if (Modifier.isStatic(mod) || Modifier.isPrivate(mod) || declared.isSynthetic()
          || declared.getName().equals("build") || declared.getName().equals("thisT")) {
        continue;
      }
      Object builder = builders.get();
      Method m = implementation(builder.getClass(), declared);
      m.setAccessible(true);
      try {
        m.invoke(builder, arguments(m.getParameterTypes()));
      } catch (InvocationTargetException e) {
        Throwable thrown = e.getCause();
        if (thrown instanceof UnsupportedOperationException) {
          assertThat(thrown.getMessage()).as("message of %s.%s", builder.getClass().getSimpleName(), m.getName())
              .isNotNull()
              .contains("Tern")
              .contains(builder.getClass().getSimpleName() + "." + m.getName() + "(")
              .contains("not supported");
          unsupported.add(m.getName());
        } else if (!(thrown instanceof IllegalArgumentException || thrown instanceof NullPointerException)) {
          throw new AssertionError(m + " threw " + thrown, thrown);
        }
      }
    }
    return unsupported;
  }

  private static Method implementation(Class<?> type, Method declared) throws NoSuchMethodException {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      try {
        return c.getDeclaredMethod(declared.getName(), declared.getParameterTypes());
      } catch (NoSuchMethodException notHere) {
        // look in the superclass
      }
    }
    throw new NoSuchMethodException(declared.toString());
  }

  private static Object[] arguments(Class<?>[] types) {
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      Class<?> t = types[i];
      if (t == int.class) {
        args[i] = 1;
      } else if (t == long.class) {
        args[i] = 1L;
      } else if (t == boolean.class) {
        args[i] = true;
      } else if (t == TimeUnit.class) {
        args[i] = TimeUnit.SECONDS;
      } else if (t == String.class) {
        args[i] = "x";
      } else if (t.isArray()) {
        args[i] = java.lang.reflect.Array.newInstance(t.getComponentType(), 0);
      } else if (t == List.class) {
        args[i] = List.of();
      } else if (t == java.util.Map.class) {
        args[i] = java.util.Map.of();
      } else if (t == java.util.concurrent.Executor.class) {
        args[i] = (java.util.concurrent.Executor) Runnable::run;
      } else {
        args[i] = null;
      }
    }
    return args;
  }

  @Test
  void aTargetListingSeveralAddressesIsRefusedNamingTheResolverAndPolicy() {
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("a:1,b:2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a:1,b:2'").hasMessageContaining("several")
        .hasMessageContaining("NameResolver").hasMessageContaining("defaultLoadBalancingPolicy");
  }

  @Test
  void otherResolverSchemesAndBadPortsAreRefusedNamingTheTarget() {
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("xds:///svc"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'xds:///svc'")
        .hasMessageContaining("no provider for 'xds'").hasMessageContaining("NameResolverProvider");
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("localhost"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no port");
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("localhost:http"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("numeric port");
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("::1:50051"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[::1]:port");
    assertThat(TernChannelBuilder.forTarget("dns:///[::1]:50051")).isNotNull();
  }

  @Test
  void anUnknownTransportFailsAtBuildNamingTheKnownOnes() {
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("localhost:1").transports("inprocesss").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown transport 'inprocesss'").hasMessageContaining("[inprocess]")
        .hasMessageContaining("did you mean 'inprocess'?");
    assertThatThrownBy(() -> TernServerBuilder.create().listen("INPROCESS", 0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown transport 'INPROCESS'").hasMessageContaining("lower case")
        .hasMessageContaining("did you mean 'inprocess'?");
  }
}
