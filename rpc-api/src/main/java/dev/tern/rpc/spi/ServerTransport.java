package dev.tern.rpc.spi;

import io.grpc.Status;
import java.io.IOException;
import java.net.SocketAddress;

/** A listening server transport; every accepted connection's streams go to one listener. */
public interface ServerTransport {

  /**
   * Binds and starts accepting.
   *
   * @param listener receives every accepted stream and the termination; not null
   * @throws IOException if the address cannot be bound (in use, not permitted); the message names
   *     the address
   */
  void start(ServerTransportListener listener) throws IOException;

  /**
   * The address actually bound, to tell clients (and tests that bound port 0) where to connect.
   *
   * @return the bound address, with the real port when 0 was asked for; null before start
   */
  SocketAddress listenAddress();

  /**
   * Stops accepting connections and new streams; open streams run to completion; the listener
   * hears {@link ServerTransportListener#serverTerminated()} when the last one closed.
   */
  void shutdown();

  /**
   * Closes every connection now, cancelling open streams with {@code status}.
   *
   * @param status what open streams are cancelled with; not OK
   */
  void shutdownNow(Status status);
}
