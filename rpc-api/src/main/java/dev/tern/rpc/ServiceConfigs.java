package dev.tern.rpc;

import io.grpc.MethodDescriptor;
import io.grpc.NameResolver;
import io.grpc.Status;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A channel's service config (grpc's JSON format as a {@code Map<String, ?>}: the builder's {@code
 * defaultServiceConfig}, or what a {@link NameResolver} gives), parsed and checked by grpc-java's
 * rules ({@code ManagedChannelServiceConfig}, {@code ServiceConfigUtil}): the method configs,
 * looked up for a method by its exact name first, then by its service, then the default entry
 * ({@code "name": [{}]}); the retry throttling; and, for load balancing, the balancing configs and
 * the health-check config, handed on as they are. Immutable.
 */
final class ServiceConfigs {
  /** grpc-java's default for both {@code maxRetryAttempts} and {@code maxHedgedAttempts}. */
  static final int DEFAULT_MAX_ATTEMPTS = 5;

  /** What the channel allows: retries on or off ({@code disableRetry()}), and its attempt caps. */
  record Limits(boolean retryEnabled, int maxRetryAttempts, int maxHedgedAttempts) {
    /** grpc-java's defaults: retries on, at most 5 attempts of either kind. */
    static final Limits DEFAULT = new Limits(true, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_ATTEMPTS);
  }

  /** grpc's {@code retryThrottling}: a token bucket per channel that stops retries when calls keep failing. */
  record RetryThrottling(double maxTokens, double tokenRatio) { }

  private static final ServiceConfigs EMPTY = new ServiceConfigs(Collections.emptyMap(), null,
      Collections.emptyMap(), Collections.emptyMap(), null, Collections.emptyList(), null);

  private final Map<String, ?> raw;
  private final MethodConfig defaultMethodConfig;
  private final Map<String, MethodConfig> byService;
  private final Map<String, MethodConfig> byMethod;
  private final RetryThrottling retryThrottling;
  private final List<Map<String, ?>> loadBalancingConfigs;
  private final Map<String, ?> healthCheckConfig;

  private ServiceConfigs(Map<String, ?> raw, MethodConfig defaultMethodConfig, Map<String, MethodConfig> byService,
      Map<String, MethodConfig> byMethod, RetryThrottling retryThrottling, List<Map<String, ?>> loadBalancingConfigs,
      Map<String, ?> healthCheckConfig) {
    this.raw = raw;
    this.defaultMethodConfig = defaultMethodConfig;
    this.byService = byService;
    this.byMethod = byMethod;
    this.retryThrottling = retryThrottling;
    this.loadBalancingConfigs = loadBalancingConfigs;
    this.healthCheckConfig = healthCheckConfig;
  }

  /** No method configs, no throttling, no balancing config: what a channel without a service config uses. */
  static ServiceConfigs empty() {
    return EMPTY;
  }

  /** {@link #parse(Map, Limits)} with grpc-java's default limits. */
  static ServiceConfigs parse(Map<String, ?> raw) {
    return parse(raw, Limits.DEFAULT);
  }

  /**
   * Parses and checks {@code raw}.
   *
   * @throws IllegalArgumentException naming the offending field and value, such as {@code
   *     methodConfig[1].timeout: '1x' is not a duration ...}
   * @throws NullPointerException if {@code raw} is null
   */
  static ServiceConfigs parse(Map<String, ?> raw, Limits limits) {
    Map<String, ?> sc = ServiceConfigJson.normalise(Objects.requireNonNull(raw, "service config"), "");
    MethodConfig defaultMethod = null;
    String defaultWhere = null;
    Map<String, MethodConfig> byService = new HashMap<>();
    Map<String, MethodConfig> byMethod = new HashMap<>();
    Map<String, String> seenAt = new HashMap<>();
    List<Map<String, ?>> entries = ServiceConfigJson.objects(sc, "methodConfig", "methodConfig");
    for (int i = 0; entries != null && i < entries.size(); i++) {
      String path = "methodConfig[" + i + "]";
      Map<String, ?> entry = entries.get(i);
      MethodConfig mc = MethodConfig.parse(entry, path, limits);
      List<Map<String, ?>> names = ServiceConfigJson.objects(entry, "name", path + ".name");
      for (int j = 0; names != null && j < names.size(); j++) {
        String at = path + ".name[" + j + "]";
        String service = ServiceConfigJson.string(names.get(j), "service", at + ".service");
        String method = ServiceConfigJson.string(names.get(j), "method", at + ".method");
        boolean noService = service == null || service.isEmpty();
        boolean noMethod = method == null || method.isEmpty();
        if (noService) {
          if (!noMethod) {
            throw new IllegalArgumentException(at + ": method '" + method + "' has no service");
          }
          if (defaultMethod != null) {
            throw new IllegalArgumentException(at + ": a second default method config (the first is at "
                + defaultWhere + ")");
          }
          defaultMethod = mc;
          defaultWhere = at;
        } else if (noMethod) {
          duplicate(seenAt.put("s:" + service, at), at, "service '" + service + "'");
          byService.put(service, mc);
        } else {
          String full = MethodDescriptor.generateFullMethodName(service, method);
          duplicate(seenAt.put("m:" + full, at), at, "method '" + full + "'");
          byMethod.put(full, mc);
        }
      }
    }
    RetryThrottling throttling = limits.retryEnabled() ? throttling(sc) : null;
    Map<String, ?> health = ServiceConfigJson.object(sc, "healthCheckConfig", "healthCheckConfig");
    if (health != null) {
      ServiceConfigJson.string(health, "serviceName", "healthCheckConfig.serviceName");
    }
    return new ServiceConfigs(sc, defaultMethod, Collections.unmodifiableMap(new LinkedHashMap<>(byService)),
        Collections.unmodifiableMap(new LinkedHashMap<>(byMethod)), throttling,
        loadBalancingConfigs(sc), health);
  }

  private static void duplicate(String firstAt, String at, String what) {
    if (firstAt != null) {
      throw new IllegalArgumentException(at + ": a second method config for " + what + " (the first is at "
          + firstAt + ")");
    }
  }

  private static RetryThrottling throttling(Map<String, ?> sc) {
    Map<String, ?> t = ServiceConfigJson.object(sc, "retryThrottling", "retryThrottling");
    if (t == null) {
      return null;
    }
    return new RetryThrottling(positive(t, "maxTokens"), positive(t, "tokenRatio"));
  }

  private static double positive(Map<String, ?> t, String key) {
    String path = "retryThrottling." + key;
    Double v = ServiceConfigJson.number(t, key, path);
    if (v == null) {
      throw new IllegalArgumentException(path + ": is required");
    }
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(path + ": " + ServiceConfigJson.describe(t.get(key)) + " must be more than 0");
    }
    return v;
  }

  /** As grpc-java: {@code loadBalancingConfig} if it lists any, else the legacy {@code loadBalancingPolicy}. */
  private static List<Map<String, ?>> loadBalancingConfigs(Map<String, ?> sc) {
    List<Map<String, ?>> configs = ServiceConfigJson.objects(sc, "loadBalancingConfig", "loadBalancingConfig");
    if (configs != null && !configs.isEmpty()) {
      for (int i = 0; i < configs.size(); i++) {
        Map<String, ?> c = configs.get(i);
        if (c.size() != 1) {
          throw new IllegalArgumentException("loadBalancingConfig[" + i + "]: " + ServiceConfigJson.describe(c)
              + " has " + c.size() + " fields; a balancing config has exactly one, the policy's name");
        }
        String name = c.keySet().iterator().next();
        ServiceConfigJson.object(c, name, "loadBalancingConfig[" + i + "]." + name);
      }
      return configs;
    }
    String policy = ServiceConfigJson.string(sc, "loadBalancingPolicy", "loadBalancingPolicy");
    if (policy == null) {
      return Collections.emptyList();
    }
    return Collections.singletonList(
        Collections.singletonMap(policy.toLowerCase(Locale.ROOT), Collections.emptyMap()));
  }

  /**
   * {@code raw} parsed for a name resolver's result ({@link
   * NameResolver.ServiceConfigParser#parseServiceConfig}): the {@link ServiceConfigs} as the
   * config, or, for a config that does not parse, an {@code UNKNOWN} error saying why.
   */
  static NameResolver.ConfigOrError parseForResolver(Map<String, ?> raw) {
    return parseForResolver(raw, Limits.DEFAULT);
  }

  /** As {@link #parseForResolver(Map)}, within the channel's {@code limits}. */
  static NameResolver.ConfigOrError parseForResolver(Map<String, ?> raw, Limits limits) {
    try {
      return NameResolver.ConfigOrError.fromConfig(parse(raw, limits));
    } catch (IllegalArgumentException | NullPointerException e) {
      return NameResolver.ConfigOrError.fromError(Status.UNKNOWN.withDescription(
          "failed to parse service config: " + e.getMessage()).withCause(e));
    }
  }

  /** The parser to give a name resolver ({@code NameResolver.Args.setServiceConfigParser}) for a channel with {@code limits}. */
  static NameResolver.ServiceConfigParser resolverParser(Limits limits) {
    return new NameResolver.ServiceConfigParser() {
      @Override
      public NameResolver.ConfigOrError parseServiceConfig(Map<String, ?> rawServiceConfig) {
        return parseForResolver(rawServiceConfig, limits);
      }
    };
  }

  /**
   * The service config a channel should use after a resolver's answer, by grpc-java's rules
   * ({@code ManagedChannelImpl}'s name-resolver listener): with look-up disabled, the default (or
   * empty) whatever the resolver said; else the resolver's valid config; else the default if there
   * is one; else, if the resolver's config was invalid, the last config the channel used if it had
   * one from a resolver before ({@code hadResolvedConfig}), or the error (grpc-java fails the
   * resolution then); else empty.
   *
   * @param fromResolver the resolver's {@code getServiceConfig()}; null if it gave none
   * @param defaultConfig the builder's default service config; null if none was set
   * @param lookUp false after {@code disableServiceConfigLookUp()}
   * @param last the config the channel uses now
   * @param hadResolvedConfig whether a resolver's answer has been applied before
   * @return the {@link ServiceConfigs} to put in the channel's holder, or an error
   */
  static NameResolver.ConfigOrError effective(NameResolver.ConfigOrError fromResolver, ServiceConfigs defaultConfig,
      boolean lookUp, ServiceConfigs last, boolean hadResolvedConfig) {
    if (!lookUp) {
      return NameResolver.ConfigOrError.fromConfig(defaultConfig != null ? defaultConfig : EMPTY);
    }
    if (fromResolver != null && fromResolver.getConfig() != null) {
      return fromResolver;
    }
    if (defaultConfig != null) {
      return NameResolver.ConfigOrError.fromConfig(defaultConfig);
    }
    if (fromResolver != null && fromResolver.getError() != null) {
      return hadResolvedConfig ? NameResolver.ConfigOrError.fromConfig(last) : fromResolver;
    }
    return NameResolver.ConfigOrError.fromConfig(EMPTY);
  }

  /** The method config for {@code method}: its own, else its service's, else the default; null if none. */
  MethodConfig methodConfig(MethodDescriptor<?, ?> method) {
    return methodConfig(method.getFullMethodName());
  }

  /** As {@link #methodConfig(MethodDescriptor)}, for a full method name ({@code pkg.Service/Method}). */
  MethodConfig methodConfig(String fullMethodName) {
    MethodConfig mc = byMethod.get(fullMethodName);
    if (mc == null) {
      String service = MethodDescriptor.extractFullServiceName(fullMethodName);
      mc = service == null ? null : byService.get(service);
    }
    return mc != null ? mc : defaultMethodConfig;
  }

  /** The {@code retryThrottling}; null if the config has none or the channel has retries disabled. */
  RetryThrottling retryThrottling() {
    return retryThrottling;
  }

  /**
   * The balancing configs to choose from, in order, each a one-entry map from the policy's name to
   * its config (numbers as doubles, as load-balancer providers expect): the {@code
   * loadBalancingConfig} list, else a legacy {@code "loadBalancingPolicy": "ROUND_ROBIN"} as {@code
   * [{"round_robin": {}}]}; empty if neither.
   */
  List<Map<String, ?>> loadBalancingConfigs() {
    return loadBalancingConfigs;
  }

  /** The raw {@code healthCheckConfig} object ({@code {"serviceName": ...}}); null if absent. */
  Map<String, ?> healthCheckConfig() {
    return healthCheckConfig;
  }

  /** The whole config as given, deep-copied, unmodifiable, numbers as doubles. */
  Map<String, ?> raw() {
    return raw;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ServiceConfigs)) {
      return false;
    }
    ServiceConfigs that = (ServiceConfigs) o;
    return Objects.equals(defaultMethodConfig, that.defaultMethodConfig) && byService.equals(that.byService)
        && byMethod.equals(that.byMethod) && Objects.equals(retryThrottling, that.retryThrottling)
        && loadBalancingConfigs.equals(that.loadBalancingConfigs)
        && Objects.equals(healthCheckConfig, that.healthCheckConfig);
  }

  @Override
  public int hashCode() {
    return Objects.hash(defaultMethodConfig, byService, byMethod, retryThrottling, loadBalancingConfigs,
        healthCheckConfig);
  }

  @Override
  public String toString() {
    return "ServiceConfigs" + raw;
  }
}
