package dev.tern.rpc;

import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.HandlerRegistry;
import io.grpc.ServerInterceptor;
import io.grpc.ServerStreamTracer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executor;

/** What a {@link TernServerBuilder} was told, frozen at {@code build()}. */
final class ServerConfig {
  final ServiceRegistry registry;
  final HandlerRegistry fallback;
  final List<ServerInterceptor> interceptors;
  final List<ServerStreamTracer.Factory> tracerFactories;
  final Executor executor;
  final CompressorRegistry compressors;
  final DecompressorRegistry decompressors;
  final int maxInboundMessageSize;
  final int[] protocolVersions;
  /** Picks a call's executor ({@code ServerBuilder.callExecutor}); null: every call on {@link #executor}. */
  final io.grpc.ServerCallExecutorSupplier callExecutors;
  /** Wraps every method served, outside the interceptors ({@code ServerBuilder.setBinaryLog}); null: none. */
  final io.grpc.BinaryLog binaryLog;
  /** The transport filters ({@code ServerBuilder.addTransportFilter}), in the order added. */
  final ServerTransportFilters transportFilters;
  /** How long an accepted connection may take to finish its handshake before it is closed. */
  final long handshakeTimeoutMillis;
  /** Where the server counts ({@code TernServerBuilder.metrics}); set once by the builder. */
  dev.tern.rpc.metrics.TernMetrics metrics = dev.tern.rpc.metrics.TernMetrics.create();
  /** The server's name in {@link #metrics}. */
  String metricsScope = "server";
  /**
   * The max-age of the server's {@code alt-svc} advertisement in seconds, or -1 when it advertises
   * nothing ({@code TernServerBuilder.advertiseTransports}); set once by the builder.
   */
  long advertisementMaxAgeSeconds = AltSvc.DEFAULT_MAX_AGE_SECONDS;

  ServerConfig(ServiceRegistry registry, HandlerRegistry fallback, List<ServerInterceptor> interceptors,
      List<ServerStreamTracer.Factory> tracerFactories, Executor executor, CompressorRegistry compressors,
      DecompressorRegistry decompressors, int maxInboundMessageSize, int[] protocolVersions,
      io.grpc.ServerCallExecutorSupplier callExecutors, io.grpc.BinaryLog binaryLog,
      List<io.grpc.ServerTransportFilter> transportFilters, long handshakeTimeoutMillis) {
    this.binaryLog = binaryLog;
    this.registry = registry;
    this.fallback = fallback;
    this.interceptors = Collections.unmodifiableList(new ArrayList<>(interceptors));
    this.tracerFactories = Collections.unmodifiableList(new ArrayList<>(tracerFactories));
    this.executor = executor;
    this.compressors = compressors;
    this.decompressors = decompressors;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.protocolVersions = protocolVersions;
    this.callExecutors = callExecutors;
    this.transportFilters = new ServerTransportFilters(transportFilters);
    this.handshakeTimeoutMillis = handshakeTimeoutMillis;
  }
}
