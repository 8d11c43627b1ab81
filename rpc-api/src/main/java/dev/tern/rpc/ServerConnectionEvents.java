package dev.tern.rpc;

import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.ServerTransportListener;
import io.grpc.Attributes;
import io.grpc.Status;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One server connection as the call layer follows it, as grpc-java's server does: a handshake
 * that has not finished after the server's handshake timeout closes the connection ({@code
 * CANCELLED}, "Handshake timeout exceeded", grpc-java's status); the transport filters see the
 * connection once when it is ready and once when it ends. A connection that never became ready
 * is not shown to the filters at all, so each {@code transportTerminated} pairs with one {@code
 * transportReady}.
 */
final class ServerConnectionEvents implements ServerTransportListener.ConnectionListener {
  private final ServerTransportFilters filters;
  private final TransportMetrics metrics;
  private ScheduledFuture<?> handshakeTimer;
  private boolean ready;
  private boolean terminated;
  private Attributes attributes;

  private ServerConnectionEvents(ServerTransportFilters filters, TransportMetrics metrics) {
    this.filters = filters;
    this.metrics = metrics;
  }

  /**
   * Follows a connection just accepted, closing it with {@code handle} if it is not ready within
   * {@code handshakeTimeoutMillis}, and counting its handshake and its life in {@code metrics}.
   */
  static ServerConnectionEvents created(ServerTransportFilters filters, ServerTransportListener.ConnectionHandle handle,
      ScheduledExecutorService scheduler, long handshakeTimeoutMillis, TransportMetrics metrics) {
    metrics.handshakeStarted();
    ServerConnectionEvents events = new ServerConnectionEvents(filters, metrics);
    if (handshakeTimeoutMillis > 0 && handshakeTimeoutMillis < Long.MAX_VALUE) {
      try {
        ScheduledFuture<?> timer = scheduler.schedule(() -> events.handshakeTimedOut(handle),
            handshakeTimeoutMillis, TimeUnit.MILLISECONDS);
        synchronized (events) {
          events.handshakeTimer = timer;
          if (events.ready || events.terminated) {
            timer.cancel(false);
          }
        }
      } catch (RejectedExecutionException e) {
        // The server has terminated: the transport is closing this connection itself.
      }
    }
    return events;
  }

  private void handshakeTimedOut(ServerTransportListener.ConnectionHandle handle) {
    synchronized (this) {
      if (ready || terminated) {
        return;
      }
    }
    metrics.handshakeTimedOut();
    handle.shutdownNow(Status.CANCELLED.withDescription("Handshake timeout exceeded"));
  }

  @Override
  public Attributes connectionReady(Attributes transportAttributes) {
    synchronized (this) {
      cancelTimer();
      if (ready || terminated) {
        return attributes != null ? attributes : transportAttributes;
      }
      ready = true;
    }
    metrics.handshakeSucceeded();
    Attributes filtered = filters.ready(transportAttributes);
    synchronized (this) {
      attributes = filtered;
    }
    return filtered;
  }

  @Override
  public void connectionTerminated() {
    Attributes last;
    synchronized (this) {
      cancelTimer();
      if (terminated) {
        return;
      }
      terminated = true;
      if (!ready) {
        metrics.handshakeFailed();
        return;
      }
      last = attributes;
    }
    metrics.connectionClosed();
    filters.terminated(last);
  }

  private void cancelTimer() {
    if (handshakeTimer != null) {
      handshakeTimer.cancel(false);
      handshakeTimer = null;
    }
  }
}
