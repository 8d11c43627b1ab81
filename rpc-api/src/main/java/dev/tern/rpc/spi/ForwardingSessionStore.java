package dev.tern.rpc.spi;

import java.util.Objects;

/**
 * A {@link SessionStore} that hands every operation to another, for a store that adds something
 * to one it wraps (counting what goes in, encrypting it, logging), as grpc-java's {@code
 * Forwarding...} classes do: override what changes and call {@code super} for the rest.
 */
public abstract class ForwardingSessionStore implements SessionStore {
  private final SessionStore delegate;

  /**
   * A store that forwards to {@code delegate}.
   *
   * @param delegate the store every operation goes to
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingSessionStore(SessionStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /**
   * The store operations go to.
   *
   * @return the store operations go to
   */
  protected final SessionStore delegate() {
    return delegate;
  }

  @Override
  public void add(String server, String kind, byte[] value, long expiresAtMillis) {
    delegate.add(server, kind, value, expiresAtMillis);
  }

  @Override
  public byte[] take(String server, String kind, long nowMillis) {
    return delegate.take(server, kind, nowMillis);
  }

  @Override
  public void put(String server, String kind, byte[] value, long expiresAtMillis) {
    delegate.put(server, kind, value, expiresAtMillis);
  }

  @Override
  public byte[] get(String server, String kind, long nowMillis) {
    return delegate.get(server, kind, nowMillis);
  }

  @Override
  public void remove(String server, String kind) {
    delegate.remove(server, kind);
  }
}
