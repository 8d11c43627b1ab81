package dev.tern.rpc;

import io.grpc.HandlerRegistry;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The services added to a server builder, by method name; immutable once built. */
final class ServiceRegistry extends HandlerRegistry {
  private final List<ServerServiceDefinition> services;
  private final Map<String, ServerMethodDefinition<?, ?>> methods = new HashMap<>();

  ServiceRegistry(Map<String, ServerServiceDefinition> byName) {
    this.services = Collections.unmodifiableList(new ArrayList<>(new LinkedHashMap<>(byName).values()));
    for (ServerServiceDefinition s : services) {
      for (ServerMethodDefinition<?, ?> m : s.getMethods()) {
        methods.put(m.getMethodDescriptor().getFullMethodName(), m);
      }
    }
  }

  @Override
  public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
    return methods.get(methodName);
  }

  @Override
  public List<ServerServiceDefinition> getServices() {
    return services;
  }
}
