package dev.tern.rpc.inprocess;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.ProtocolVersions;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.SerializingExecutor;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** A connection to an in-process server; agrees the protocol version when it starts. */
final class InProcessClientTransport implements ClientTransport {
  private static final AtomicInteger IDS = new AtomicInteger();

  private final String transportName;
  private final InProcessAddress address;
  private final InProcessAddress localAddress;
  private final TransportOptions options;
  private final boolean negotiateVersion;
  private final SerializingExecutor events = new SerializingExecutor(InProcessExecutor.get());
  private final Set<InProcessStream> streams = ConcurrentHashMap.newKeySet();
  final AtomicLong bytesSent = new AtomicLong();
  final AtomicLong bytesReceived = new AtomicLong();
  private volatile Listener listener;
  private volatile InProcessServerTransport server;
  private volatile int protocolVersion;
  /** The connection's attributes on the server's side, as its listener returned them. */
  private volatile io.grpc.Attributes serverAttributes;
  private Status shutdownStatus;
  private boolean terminated;

  InProcessClientTransport(String transportName, InProcessAddress address, String authority,
      TransportOptions options, boolean negotiateVersion) {
    this.transportName = transportName;
    this.address = address;
    this.localAddress = new InProcessAddress(address.name() + "#client-" + IDS.incrementAndGet());
    this.options = options;
    this.negotiateVersion = negotiateVersion;
  }

  @Override
  public void start(Listener listener) {
    synchronized (this) {
      if (this.listener != null) {
        throw new IllegalStateException("already started");
      }
      this.listener = listener;
    }
    InProcessServerTransport s = InProcessServerTransport.lookup(address);
    if (s == null || !s.accept(this)) {
      shutdown(Status.UNAVAILABLE.withDescription("no in-process server is listening on " + address));
      return;
    }
    server = s;
    if (negotiateVersion) {
      int[] ours = options.get(TransportOptions.PROTOCOL_VERSIONS);
      int[] theirs = s.options().get(TransportOptions.PROTOCOL_VERSIONS);
      OptionalInt v = ProtocolVersions.highestCommon(ours, theirs);
      if (!v.isPresent()) {
        s.clientGone(this);
        shutdown(ProtocolVersions.noCommonVersion(ours, theirs));
        return;
      }
      protocolVersion = v.getAsInt();
    }
    serverAttributes = s.connected(this);
    events.execute(() -> listener.transportReady(connectionInfo()));
  }

  @Override
  public ClientStream newStream(RequestHeaders headers, ClientStreamListener streamListener) {
    InProcessServerTransport s = server;
    InProcessStream stream = new InProcessStream(this, s, headers, streamListener);
    Status tooLarge = stream.requestHeadersTooLarge();
    Status refused;
    synchronized (this) {
      if (listener == null) {
        refused = Status.UNAVAILABLE.withDescription("transport not started");
      } else if (shutdownStatus != null) {
        refused = shutdownStatus;
      } else if (tooLarge != null) {
        refused = tooLarge;
      } else if (!s.addStream(stream)) {
        refused = Status.UNAVAILABLE.withDescription("in-process server " + address + " is shutting down");
      } else {
        streams.add(stream);
        refused = null;
      }
    }
    if (refused != null) {
      stream.refuse(refused);
    } else {
      stream.begin();
    }
    return stream.clientSide();
  }

  TransportOptions options() {
    return options;
  }

  /** The refusal of request metadata over the server's limit, as grpc-java's in-process transport; else null. */
  private static Status tooLarge(RequestHeaders headers, InProcessServerTransport s) {
    int limit = s.options().get(TransportOptions.MAX_INBOUND_METADATA_SIZE);
    long size = MetadataSize.of(headers.metadata());
    return size <= limit ? null : Status.RESOURCE_EXHAUSTED.withDescription(
        String.format(java.util.Locale.ROOT, "Request metadata larger than %d: %d", limit, size));
  }

  InProcessAddress localAddress() {
    return localAddress;
  }

  int protocolVersion() {
    return protocolVersion;
  }

  String transportName() {
    return transportName;
  }

  io.grpc.Attributes serverAttributes() {
    return serverAttributes;
  }

  synchronized boolean isTerminated() {
    return terminated;
  }

  void streamClosed(InProcessStream stream) {
    if (streams.remove(stream)) {
      InProcessServerTransport s = server;
      if (s != null) {
        s.streamClosed(stream);
      }
    }
    maybeTerminate();
  }

  @Override
  public ConnectionInfo connectionInfo() {
    return ConnectionInfo.builder(transportName).protocolVersion(protocolVersion)
        .localAddress(localAddress).remoteAddress(address)
        .bytesSent(bytesSent.get()).bytesReceived(bytesReceived.get()).build();
  }

  @Override
  public void shutdown() {
    shutdown(Status.UNAVAILABLE.withDescription("in-process transport to " + address + " shut down"));
  }

  void serverShutdown(Status status) {
    shutdown(status);
  }

  private void shutdown(Status status) {
    synchronized (this) {
      if (shutdownStatus != null) {
        return;
      }
      shutdownStatus = status;
      // Queued under the lock: a stream closing on another thread may call maybeTerminate() as
      // soon as shutdownStatus is set, and transportTerminated must not be queued ahead of this.
      Listener l = listener;
      if (l != null) {
        events.execute(() -> l.transportShutdown(status));
      }
    }
    InProcessServerTransport s = server;
    if (s != null) {
      s.clientGone(this);
    }
    maybeTerminate();
  }

  @Override
  public void shutdownNow(Status status) {
    shutdown();
    for (InProcessStream s : new ArrayList<>(streams)) {
      s.abort(status, Status.CANCELLED.withDescription("client transport shut down: "
          + status.getDescription()));
    }
    maybeTerminate();
  }

  private void maybeTerminate() {
    Listener l;
    synchronized (this) {
      if (shutdownStatus == null || terminated || !streams.isEmpty() || listener == null) {
        return;
      }
      terminated = true;
      l = listener;
    }
    events.execute(l::transportTerminated);
    InProcessServerTransport s = server;
    if (s != null) {
      s.disconnected(this);
    }
  }

  @Override
  public String toString() {
    return "InProcessClientTransport{" + localAddress + " -> " + address + '}';
  }
}
