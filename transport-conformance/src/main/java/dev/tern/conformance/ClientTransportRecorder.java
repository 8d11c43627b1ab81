package dev.tern.conformance;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientTransport;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Records a client transport's lifecycle events and checks their order. */
public final class ClientTransportRecorder implements ClientTransport.Listener {
  /** Completes on {@code transportReady}. */
  public final CompletableFuture<ConnectionInfo> ready = new CompletableFuture<>();
  /** Completes on {@code transportShutdown}. */
  public final CompletableFuture<Status> shutdown = new CompletableFuture<>();
  /** Completes on {@code transportTerminated}. */
  public final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final List<String> violations;
  private final List<ClientStreamRecorder> streams = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** Remembers a stream of this transport, to check it closed before the transport terminated. */
  void track(ClientStreamRecorder stream) {
    streams.add(stream);
  }

  ClientTransportRecorder(List<String> violations) {
    this.violations = violations;
  }

  @Override
  public void transportReady(ConnectionInfo info) {
    if (shutdown.isDone()) {
      violations.add("client transport: transportReady after transportShutdown");
    }
    if (!ready.complete(info)) {
      violations.add("client transport: transportReady called twice");
    }
  }

  @Override
  public void transportShutdown(Status status) {
    if (!shutdown.complete(status)) {
      violations.add("client transport: transportShutdown called twice");
    }
  }

  @Override
  public void transportTerminated() {
    if (!shutdown.isDone()) {
      violations.add("client transport: transportTerminated before transportShutdown");
    }
    // Only streams that were open count: one refused around the time of shutdown may close later.
    for (ClientStreamRecorder s : streams) {
      if (s.heardFromServer() && !s.closed.isDone()) {
        violations.add("client transport: transportTerminated before a stream's onClose");
      }
    }
    if (!terminated.complete(null)) {
      violations.add("client transport: transportTerminated called twice");
    }
  }
}
