package dev.tern.rpc.spi;

/** Receives what a {@link ServerTransport} accepts. */
public interface ServerTransportListener {

  /**
   * A client opened a stream. Returns the listener for the stream's events; the transport delivers
   * nothing to it until this method returns. Must not block.
   *
   * @param stream the new stream, to answer on
   * @param headers the call's method, authority, deadline and metadata
   * @return the listener for the stream's events; never null
   */
  ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers);

  /** The transport has shut down and released everything: no stream is open, no socket bound. */
  void serverTerminated();
}
