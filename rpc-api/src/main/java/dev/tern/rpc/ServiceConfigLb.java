package dev.tern.rpc;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The load-balancing parts of a service config (grpc's JSON form, as a map). */
final class ServiceConfigLb {
  private ServiceConfigLb() {}

  /**
   * The {@code loadBalancingConfig} list, or the legacy {@code loadBalancingPolicy} name as a
   * one-entry list (lower-cased, as grpc-java reads it); empty if the config names neither.
   *
   * @throws IllegalArgumentException if either field has the wrong type
   */
  @SuppressWarnings("unchecked")
  static List<Map<String, ?>> loadBalancingConfigs(Map<String, ?> serviceConfig) {
    if (serviceConfig == null) {
      return List.of();
    }
    Object configs = serviceConfig.get("loadBalancingConfig");
    if (configs != null) {
      if (!(configs instanceof List)) {
        throw new IllegalArgumentException("loadBalancingConfig: expected a list, was " + configs);
      }
      for (Object c : (List<?>) configs) {
        if (!(c instanceof Map)) {
          throw new IllegalArgumentException("loadBalancingConfig: expected objects, found " + c);
        }
      }
      return (List<Map<String, ?>>) configs;
    }
    Object legacy = serviceConfig.get("loadBalancingPolicy");
    if (legacy == null) {
      return List.of();
    }
    if (!(legacy instanceof String)) {
      throw new IllegalArgumentException("loadBalancingPolicy: expected a string, was " + legacy);
    }
    return List.of(Map.of(((String) legacy).toLowerCase(Locale.ROOT), Map.of()));
  }

  /**
   * The {@code healthCheckConfig} object, or null.
   *
   * @throws IllegalArgumentException if it is not an object
   */
  @SuppressWarnings("unchecked")
  static Map<String, ?> healthCheckConfig(Map<String, ?> serviceConfig) {
    Object h = serviceConfig == null ? null : serviceConfig.get("healthCheckConfig");
    if (h == null) {
      return null;
    }
    if (!(h instanceof Map)) {
      throw new IllegalArgumentException("healthCheckConfig: expected an object, was " + h);
    }
    return (Map<String, ?>) h;
  }
}
