package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.stream.Stream;

/** Forwards to a listener that can be set after the connection exists. */
final class ListenerRelay implements ConnectionListener {
  private static final ConnectionListener NONE = new ConnectionListener() {};
  ConnectionListener target = NONE;

  void set(ConnectionListener l) {
    target = l == null ? NONE : l;
  }

  @Override public void onHandshakeComplete(Connection c) { target.onHandshakeComplete(c); }
  @Override public void onTicket(Connection c, SessionTicket t) { target.onTicket(c, t); }
  @Override public void onClosed(Connection c, TransportError e, long code, String reason,
      boolean byPeer) {
    target.onClosed(c, e, code, reason, byPeer);
  }
  @Override public void onNewToken(Connection c, byte[] token) { target.onNewToken(c, token); }
  @Override public void onStreamOpened(Stream s) { target.onStreamOpened(s); }
  @Override public void onReadable(Stream s) { target.onReadable(s); }
  @Override public void onWritable(Stream s) { target.onWritable(s); }
  @Override public void onReset(Stream s, long code) { target.onReset(s, code); }
  @Override public void onStopSending(Stream s, long code) { target.onStopSending(s, code); }
  @Override public void onClosed(Stream s) { target.onClosed(s); }
}
