package dev.tern.rpc;

import io.grpc.ClientInterceptor;
import io.grpc.ServerStreamTracer;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * OpenCensus stats and tracing, installed as grpc-java's channel and server builders (and so
 * grpc-netty) install them by default: only when {@code io.grpc:grpc-census} is on the class path,
 * found by name as grpc-java finds it, with grpc-java's default settings (started and finished
 * calls and retries recorded, no real-time metrics). Stats come before tracing, and both before the
 * application's interceptors and tracer factories, in the order grpc-java uses.
 */
final class Census {
  private static final Logger log = Logger.getLogger(Census.class.getName());
  private static final String STATS = "io.grpc.census.InternalCensusStatsAccessor";
  private static final String TRACING = "io.grpc.census.InternalCensusTracingAccessor";

  private Census() {}

  /**
   * The interceptors a channel puts innermost (run last, so their headers win): empty without
   * grpc-census on the class path.
   */
  static List<ClientInterceptor> clientInterceptors(boolean stats, boolean tracing) {
    List<ClientInterceptor> out = new ArrayList<>(2);
    if (tracing) {
      add(out, ClientInterceptor.class, TRACING, "getClientInterceptor", new Class<?>[0]);
    }
    if (stats) {
      add(out, ClientInterceptor.class, STATS, "getClientInterceptor",
          new Class<?>[] {boolean.class, boolean.class, boolean.class, boolean.class}, true, true, false, true);
    }
    return out;
  }

  /** The tracer factories a server puts before the application's: empty without grpc-census. */
  static List<ServerStreamTracer.Factory> serverTracerFactories(boolean stats, boolean tracing) {
    List<ServerStreamTracer.Factory> out = new ArrayList<>(2);
    if (stats) {
      add(out, ServerStreamTracer.Factory.class, STATS, "getServerStreamTracerFactory",
          new Class<?>[] {boolean.class, boolean.class, boolean.class}, true, true, false);
    }
    if (tracing) {
      add(out, ServerStreamTracer.Factory.class, TRACING, "getServerStreamTracerFactory", new Class<?>[0]);
    }
    return out;
  }

  private static <T> void add(List<T> out, Class<T> type, String className, String methodName,
      Class<?>[] parameters, Object... args) {
    Class<?> accessor;
    try {
      accessor = Class.forName(className, true, Census.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return; // grpc-census is not on the class path: nothing to install, as in grpc-java
    }
    try {
      Method m = accessor.getMethod(methodName, parameters);
      out.add(type.cast(m.invoke(null, args)));
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      log.log(Level.FINE, "cannot install grpc-census from " + className + "." + methodName, e);
    }
  }
}
