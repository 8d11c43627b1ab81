package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.NameResolver;
import io.grpc.Status;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The service-config parser: grpc-java's rules, and errors that name the field and the value. */
class ServiceConfigsTest {

  @SafeVarargs
  private static Map<String, ?> methodConfigs(Map<String, ?>... entries) {
    return Map.of("methodConfig", List.of(entries));
  }

  private static Map<String, Object> entry(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  private static List<Map<String, ?>> name(String service, String method) {
    return List.of(method == null ? Map.of("service", service) : Map.of("service", service, "method", method));
  }

  private static Map<String, Object> retry(Object... overrides) {
    Map<String, Object> p = entry("maxAttempts", 3, "initialBackoff", "0.1s", "maxBackoff", "1s",
        "backoffMultiplier", 2, "retryableStatusCodes", List.of("UNAVAILABLE"));
    for (int i = 0; i < overrides.length; i += 2) {
      if (overrides[i + 1] == null) {
        p.remove((String) overrides[i]);
      } else {
        p.put((String) overrides[i], overrides[i + 1]);
      }
    }
    return p;
  }

  private static Map<String, Object> hedging(Object... overrides) {
    Map<String, Object> p = entry("maxAttempts", 3, "hedgingDelay", "0.5s", "nonFatalStatusCodes",
        List.of("UNAVAILABLE"));
    for (int i = 0; i < overrides.length; i += 2) {
      if (overrides[i + 1] == null) {
        p.remove((String) overrides[i]);
      } else {
        p.put((String) overrides[i], overrides[i + 1]);
      }
    }
    return p;
  }

  private static void refused(Map<String, ?> config, String messageStart) {
    assertThatThrownBy(() -> ServiceConfigs.parse(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(messageStart);
  }

  private static void refusedInMethod(Map<String, ?> methodEntry, String messageStart) {
    Map<String, Object> named = new LinkedHashMap<>(methodEntry);
    named.put("name", name("test.Echo", "Unary"));
    refused(methodConfigs(named), messageStart);
  }

  @Test
  void aBadTimeoutIsNamedByItsPathAndValue() {
    refused(methodConfigs(entry("name", name("a.A", null), "timeout", "1s"),
        entry("name", name("b.B", null), "timeout", "1x")), "methodConfig[1].timeout: '1x' is not a duration");
    refusedInMethod(entry("timeout", 5), "methodConfig[0].timeout: '5' is not a duration");
    refusedInMethod(entry("timeout", "1.0000000001s"), "methodConfig[0].timeout: '1.0000000001s' is not a duration");
    refusedInMethod(entry("timeout", "-1s"), "methodConfig[0].timeout: '-1s' is negative");
    refusedInMethod(entry("timeout", "315576000001s"), "methodConfig[0].timeout: '315576000001s' is out of a duration's range");
  }

  @Test
  void badLimitsAndWaitForReadyAreNamed() {
    refusedInMethod(entry("waitForReady", "yes"), "methodConfig[0].waitForReady: 'yes' is not a boolean");
    refusedInMethod(entry("maxResponseMessageBytes", 1.5), "methodConfig[0].maxResponseMessageBytes: '1.5' is not an integer");
    refusedInMethod(entry("maxResponseMessageBytes", 3_000_000_000L),
        "methodConfig[0].maxResponseMessageBytes: '3000000000' is not an integer (it exceeds 2147483647)");
    refusedInMethod(entry("maxRequestMessageBytes", -1), "methodConfig[0].maxRequestMessageBytes: '-1' is negative");
    refusedInMethod(entry("maxRequestMessageBytes", "lots"), "methodConfig[0].maxRequestMessageBytes: 'lots' is not an integer");
  }

  @Test
  void retryPolicyIsValidatedAsGrpcJavaDoes() {
    String p = "methodConfig[0].retryPolicy";
    refusedInMethod(entry("retryPolicy", retry("maxAttempts", 1)), p + ".maxAttempts: '1' must be 2 or more");
    refusedInMethod(entry("retryPolicy", retry("maxAttempts", null)), p + ".maxAttempts: is required");
    refusedInMethod(entry("retryPolicy", retry("initialBackoff", null)), p + ".initialBackoff: is required");
    refusedInMethod(entry("retryPolicy", retry("initialBackoff", "0s")), p + ".initialBackoff: '0s' must be more than 0");
    refusedInMethod(entry("retryPolicy", retry("maxBackoff", "soon")), p + ".maxBackoff: 'soon' is not a duration");
    refusedInMethod(entry("retryPolicy", retry("backoffMultiplier", 0)), p + ".backoffMultiplier: '0' must be more than 0");
    refusedInMethod(entry("retryPolicy", retry("backoffMultiplier", null)), p + ".backoffMultiplier: is required");
    refusedInMethod(entry("retryPolicy", retry("perAttemptRecvTimeout", "-2s")), p + ".perAttemptRecvTimeout: '-2s' is negative");
    refusedInMethod(entry("retryPolicy", retry("retryableStatusCodes", null)), p + ".retryableStatusCodes: is required");
    refusedInMethod(entry("retryPolicy", retry("retryableStatusCodes", List.of())),
        p + ".retryableStatusCodes: is empty, which a retry policy without perAttemptRecvTimeout may not be");
    refusedInMethod(entry("retryPolicy", retry("retryableStatusCodes", List.of("OK"))),
        p + ".retryableStatusCodes: must not contain OK");
    refusedInMethod(entry("retryPolicy", retry("retryableStatusCodes", List.of("UNAVAILABLE", "BOGUS"))),
        p + ".retryableStatusCodes[1]: 'BOGUS' is not a status code");
    refusedInMethod(entry("retryPolicy", retry("retryableStatusCodes", List.of(14, 99))),
        p + ".retryableStatusCodes[1]: '99' is not a status code");
    refusedInMethod(entry("retryPolicy", retry("retryableStatusCodes", List.of(2.5))),
        p + ".retryableStatusCodes[0]: '2.5' is not a status code");
    refusedInMethod(entry("retryPolicy", "often"), p + ": 'often' is not an object");
  }

  @Test
  void hedgingPolicyIsValidatedAndAMethodMayNotHaveBoth() {
    String p = "methodConfig[0].hedgingPolicy";
    refusedInMethod(entry("hedgingPolicy", hedging("maxAttempts", 0)), p + ".maxAttempts: '0' must be 2 or more");
    refusedInMethod(entry("hedgingPolicy", hedging("hedgingDelay", null)), p + ".hedgingDelay: is required");
    refusedInMethod(entry("hedgingPolicy", hedging("hedgingDelay", "-1s")), p + ".hedgingDelay: '-1s' is negative");
    refusedInMethod(entry("hedgingPolicy", hedging("nonFatalStatusCodes", List.of(0))),
        p + ".nonFatalStatusCodes: must not contain OK");
    refusedInMethod(entry("retryPolicy", retry(), "hedgingPolicy", hedging()),
        "methodConfig[0]: has both a retryPolicy and a hedgingPolicy");
  }

  @Test
  void namesAreCheckedAndDuplicatesRefused() {
    refused(methodConfigs(entry("name", name("test.Echo", "Unary")), entry("name", name("test.Echo", "Unary"))),
        "methodConfig[1].name[0]: a second method config for method 'test.Echo/Unary' (the first is at"
            + " methodConfig[0].name[0])");
    refused(methodConfigs(entry("name", List.of(Map.of("service", "test.Echo"), Map.of("service", "test.Echo")))),
        "methodConfig[0].name[1]: a second method config for service 'test.Echo' (the first is at"
            + " methodConfig[0].name[0])");
    refused(methodConfigs(entry("name", List.of(Map.of())), entry("name", List.of(Map.of("service", "")))),
        "methodConfig[1].name[0]: a second default method config (the first is at methodConfig[0].name[0])");
    refused(methodConfigs(entry("name", List.of(Map.of("method", "Unary")))),
        "methodConfig[0].name[0]: method 'Unary' has no service");
    refused(methodConfigs(entry("name", List.of("test.Echo"))), "methodConfig[0].name[0]: 'test.Echo' is not an object");
    refused(methodConfigs(entry("name", List.of(Map.of("service", 7)))), "methodConfig[0].name[0].service: '7' is not a string");
    refused(Map.of("methodConfig", "all"), "methodConfig: 'all' is not a list");
  }

  @Test
  void throttlingBalancingAndValueTypesAreChecked() {
    refused(Map.of("retryThrottling", Map.of("maxTokens", 0, "tokenRatio", 0.1)),
        "retryThrottling.maxTokens: '0' must be more than 0");
    refused(Map.of("retryThrottling", Map.of("maxTokens", 10)), "retryThrottling.tokenRatio: is required");
    refused(Map.of("loadBalancingConfig", List.of(Map.of("round_robin", Map.of(), "pick_first", Map.of()))),
        "loadBalancingConfig[0]: ");
    refused(Map.of("loadBalancingConfig", List.of(Map.of("round_robin", "fast"))),
        "loadBalancingConfig[0].round_robin: 'fast' is not an object");
    refused(Map.of("healthCheckConfig", Map.of("serviceName", 1)), "healthCheckConfig.serviceName: '1' is not a string");
    refused(Map.of("methodConfig", List.of(Map.of("timeout", new Object()))),
        "methodConfig[0].timeout: a java.lang.Object is not a JSON value");
    @SuppressWarnings({"unchecked", "rawtypes"})
    Map<String, ?> numericKey = (Map) Map.of(1, "one");
    refused(numericKey, "service config: key '1' is not a string");
  }

  @Test
  void anEntryWithoutNamesIsStillValidated() {
    refused(methodConfigs(entry("timeout", "later")), "methodConfig[0].timeout: 'later' is not a duration");
    assertThat(ServiceConfigs.parse(methodConfigs(entry("timeout", "1s"))).methodConfig("test.Echo/Unary")).isNull();
  }

  @Test
  void lookupPrefersTheMethodThenItsServiceThenTheDefault() {
    ServiceConfigs sc = ServiceConfigs.parse(methodConfigs(
        entry("name", List.of(Map.of()), "timeout", "3s"),
        entry("name", name("test.Echo", null), "timeout", "2s"),
        entry("name", name("test.Echo", "Unary"), "timeout", "1s", "waitForReady", true,
            "maxRequestMessageBytes", 10, "maxResponseMessageBytes", "20")));
    MethodConfig unary = sc.methodConfig(TestMethods.UNARY);
    assertThat(unary.timeoutNanos).isEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(unary.waitForReady).isTrue();
    assertThat(unary.maxRequestMessageBytes).isEqualTo(10);
    assertThat(unary.maxResponseMessageBytes).isEqualTo(20);
    assertThat(sc.methodConfig(TestMethods.BIDI).timeoutNanos).isEqualTo(TimeUnit.SECONDS.toNanos(2));
    assertThat(sc.methodConfig(TestMethods.BIDI).waitForReady).isNull();
    assertThat(sc.methodConfig("other.Service/Call").timeoutNanos).isEqualTo(TimeUnit.SECONDS.toNanos(3));

    ServiceConfigs noDefault = ServiceConfigs.parse(methodConfigs(entry("name", name("test.Echo", null))));
    assertThat(noDefault.methodConfig("other.Service/Call")).isNull();
    assertThat(ServiceConfigs.empty().methodConfig(TestMethods.UNARY)).isNull();
  }

  @Test
  void durationsAreProtoJsonDurations() {
    assertThat(ServiceConfigs.parse(methodConfigs(entry("name", List.of(Map.of()), "timeout", "1.5s")))
        .methodConfig("a.B/C").timeoutNanos).isEqualTo(1_500_000_000L);
    assertThat(ServiceConfigs.parse(methodConfigs(entry("name", List.of(Map.of()), "timeout", "0.000000001s")))
        .methodConfig("a.B/C").timeoutNanos).isEqualTo(1L);
    assertThat(ServiceConfigs.parse(methodConfigs(entry("name", List.of(Map.of()), "timeout", "315576000000s")))
        .methodConfig("a.B/C").timeoutNanos).as("saturated, as grpc-java").isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void policiesAreParsedAndCappedByTheChannel() {
    Map<String, ?> config = methodConfigs(
        entry("name", name("test.Echo", "Unary"), "retryPolicy", retry("maxAttempts", 10,
            "retryableStatusCodes", List.of("UNAVAILABLE", 4), "perAttemptRecvTimeout", "0.25s")),
        entry("name", name("test.Echo", "Bidi"), "hedgingPolicy", hedging("maxAttempts", 10)));
    ServiceConfigs defaults = ServiceConfigs.parse(config);
    assertThat(defaults.methodConfig(TestMethods.UNARY).retryPolicy).isEqualTo(RetryPolicy.of(5,
        TimeUnit.MILLISECONDS.toNanos(100), TimeUnit.SECONDS.toNanos(1), 2.0, TimeUnit.MILLISECONDS.toNanos(250),
        EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED)));
    assertThat(defaults.methodConfig(TestMethods.BIDI).hedgingPolicy).isEqualTo(HedgingPolicy.of(5,
        TimeUnit.MILLISECONDS.toNanos(500), Set.of(Status.Code.UNAVAILABLE)));

    ServiceConfigs capped = ServiceConfigs.parse(config, new ServiceConfigs.Limits(true, 3, 4));
    assertThat(capped.methodConfig(TestMethods.UNARY).retryPolicy.maxAttempts()).isEqualTo(3);
    assertThat(capped.methodConfig(TestMethods.BIDI).hedgingPolicy.maxAttempts()).isEqualTo(4);

    ServiceConfigs oneAttempt = ServiceConfigs.parse(config, new ServiceConfigs.Limits(true, 1, 1));
    assertThat(oneAttempt.methodConfig(TestMethods.UNARY).retryPolicy).as("one attempt: nothing to retry").isNull();
    assertThat(oneAttempt.methodConfig(TestMethods.BIDI).hedgingPolicy).isNull();
  }

  @Test
  void withRetriesDisabledPoliciesAndThrottlingAreNotRead() {
    Map<String, ?> config = Map.of(
        "methodConfig", List.of(entry("name", name("test.Echo", null), "timeout", "1s",
            "retryPolicy", retry("maxAttempts", 1), "hedgingPolicy", hedging())),
        "retryThrottling", Map.of("maxTokens", 10, "tokenRatio", 0.1));
    assertThatThrownBy(() -> ServiceConfigs.parse(config)).isInstanceOf(IllegalArgumentException.class);
    ServiceConfigs off = ServiceConfigs.parse(config, new ServiceConfigs.Limits(false, 5, 5));
    MethodConfig mc = off.methodConfig(TestMethods.UNARY);
    assertThat(mc.timeoutNanos).isEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(mc.retryPolicy).isNull();
    assertThat(mc.hedgingPolicy).isNull();
    assertThat(off.retryThrottling()).isNull();
    assertThat(ServiceConfigs.parse(Map.of("retryThrottling", Map.of("maxTokens", 10, "tokenRatio", "0.1")))
        .retryThrottling()).isEqualTo(new ServiceConfigs.RetryThrottling(10, 0.1));
  }

  @Test
  void balancingConfigsPreferTheListOverTheLegacyPolicy() {
    assertThat(ServiceConfigs.parse(Map.of("loadBalancingPolicy", "ROUND_ROBIN")).loadBalancingConfigs())
        .containsExactly(Map.of("round_robin", Map.of()));
    assertThat(ServiceConfigs.parse(Map.of("loadBalancingConfig", List.of(), "loadBalancingPolicy", "round_robin"))
        .loadBalancingConfigs()).as("an empty list falls back to the policy").containsExactly(Map.of("round_robin", Map.of()));
    ServiceConfigs both = ServiceConfigs.parse(Map.of(
        "loadBalancingConfig", List.of(Map.of("weird_lb", Map.of("n", 3)), Map.of("pick_first", Map.of())),
        "loadBalancingPolicy", "round_robin"));
    assertThat(both.loadBalancingConfigs()).containsExactly(Map.of("weird_lb", Map.of("n", 3.0)),
        Map.of("pick_first", Map.of()));
    assertThat(ServiceConfigs.parse(Map.of()).loadBalancingConfigs()).isEmpty();
    assertThat(ServiceConfigs.empty().loadBalancingConfigs()).isEmpty();
  }

  @Test
  void healthCheckConfigAndRawAreHandedOnAsGiven() {
    ServiceConfigs sc = ServiceConfigs.parse(Map.of("healthCheckConfig", Map.of("serviceName", "svc"),
        "someFutureField", List.of(1, true)));
    assertThat(sc.healthCheckConfig()).isEqualTo(Map.of("serviceName", "svc"));
    assertThat(sc.raw().get("someFutureField")).isEqualTo(List.of(1.0, true));
    assertThatThrownBy(() -> ((Map<String, Object>) sc.raw()).put("x", 1))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(ServiceConfigs.empty().healthCheckConfig()).isNull();
    assertThat(ServiceConfigs.parse(Map.of("healthCheckConfig", Map.of("serviceName", "svc"))))
        .isEqualTo(ServiceConfigs.parse(Map.of("healthCheckConfig", Map.of("serviceName", "svc"))))
        .isNotEqualTo(ServiceConfigs.empty());
  }

  @Test
  void aResolverGetsAnUnknownErrorForABadConfig() {
    NameResolver.ConfigOrError bad = ServiceConfigs.parseForResolver(methodConfigs(
        entry("name", name("test.Echo", null), "timeout", "1x")));
    assertThat(bad.getError()).isNotNull();
    assertThat(bad.getError().getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(bad.getError().getDescription())
        .startsWith("failed to parse service config: methodConfig[0].timeout: '1x' is not a duration");
    NameResolver.ConfigOrError good = ServiceConfigs.resolverParser(ServiceConfigs.Limits.DEFAULT)
        .parseServiceConfig(methodConfigs(entry("name", name("test.Echo", null), "timeout", "1s")));
    assertThat(good.getError()).isNull();
    assertThat(((ServiceConfigs) good.getConfig()).methodConfig(TestMethods.UNARY).timeoutNanos)
        .isEqualTo(TimeUnit.SECONDS.toNanos(1));
  }

  @Test
  void theEffectiveConfigFollowsGrpcJavasFallbacks() {
    ServiceConfigs fallback = ServiceConfigs.parse(Map.of("loadBalancingPolicy", "pick_first"));
    ServiceConfigs resolved = ServiceConfigs.parse(Map.of("loadBalancingPolicy", "round_robin"));
    NameResolver.ConfigOrError valid = NameResolver.ConfigOrError.fromConfig(resolved);
    NameResolver.ConfigOrError invalid = NameResolver.ConfigOrError.fromError(Status.UNKNOWN.withDescription("bad"));
    ServiceConfigs last = ServiceConfigs.parse(Map.of("loadBalancingPolicy", "grpclb"));

    assertThat(ServiceConfigs.effective(valid, fallback, false, last, true).getConfig())
        .as("look-up disabled: the default").isEqualTo(fallback);
    assertThat(ServiceConfigs.effective(valid, null, false, last, true).getConfig()).isEqualTo(ServiceConfigs.empty());
    assertThat(ServiceConfigs.effective(valid, fallback, true, last, true).getConfig()).isEqualTo(resolved);
    assertThat(ServiceConfigs.effective(null, fallback, true, last, true).getConfig()).isEqualTo(fallback);
    assertThat(ServiceConfigs.effective(invalid, fallback, true, last, true).getConfig()).isEqualTo(fallback);
    assertThat(ServiceConfigs.effective(invalid, null, true, last, true).getConfig())
        .as("a bad config after a good one: keep the last").isEqualTo(last);
    assertThat(ServiceConfigs.effective(invalid, null, true, ServiceConfigs.empty(), false).getError())
        .as("a bad first config without a default: the error").isEqualTo(invalid.getError());
    assertThat(ServiceConfigs.effective(null, null, true, last, true).getConfig()).isEqualTo(ServiceConfigs.empty());
  }

  @Test
  void policyValueTypesCheckTheirFieldsAndCompareByValue() {
    RetryPolicy a = RetryPolicy.of(3, 100, 1000, 1.5, null, Set.of(Status.Code.UNAVAILABLE));
    RetryPolicy b = RetryPolicy.of(3, 100, 1000, 1.5, null, EnumSet.of(Status.Code.UNAVAILABLE));
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo(RetryPolicy.of(4, 100, 1000, 1.5, null,
        Set.of(Status.Code.UNAVAILABLE)));
    assertThat(a.perAttemptRecvTimeoutNanos()).isEmpty();
    assertThat(a.toString()).isEqualTo("RetryPolicy{maxAttempts=3, initialBackoff=0.0000001s, maxBackoff=0.000001s,"
        + " backoffMultiplier=1.5, retryableStatusCodes=[UNAVAILABLE]}");
    assertThatThrownBy(() -> a.retryableStatusCodes().add(Status.Code.INTERNAL))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> RetryPolicy.of(3, 0, 1000, 1.5, null, Set.of(Status.Code.UNAVAILABLE)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("initialBackoff");
    assertThatThrownBy(() -> RetryPolicy.of(3, 1, 1000, 1.5, null, Set.of(Status.Code.OK)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("retryableStatusCodes must not contain OK");

    HedgingPolicy h = HedgingPolicy.of(2, TimeUnit.MILLISECONDS.toNanos(500), Set.of());
    assertThat(h).isEqualTo(HedgingPolicy.of(2, 500_000_000L, EnumSet.noneOf(Status.Code.class)))
        .hasSameHashCodeAs(HedgingPolicy.of(2, 500_000_000L, Set.of()));
    assertThat(h.toString()).isEqualTo("HedgingPolicy{maxAttempts=2, hedgingDelay=0.5s, nonFatalStatusCodes=[]}");
    assertThatThrownBy(() -> HedgingPolicy.of(1, 0, Set.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxAttempts must be 2 or more, was 1");
  }
}
