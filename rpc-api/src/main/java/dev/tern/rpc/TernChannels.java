package dev.tern.rpc;

import io.grpc.Channel;

/** What a Tern channel is connected over. */
public final class TernChannels {
  private TernChannels() {}

  /**
   * The channel's current connection (transport, protocol version, counters), or null while it is
   * not connected. A channel whose load-balancing policy keeps several backends connected
   * ({@code round_robin}) gives the connection of the first backend that is ready.
   *
   * @param channel a channel built by {@link TernChannelBuilder} (itself, not one wrapped with
   *     interceptors)
   * @return a snapshot of the connection, or null while the channel is not connected
   * @throws IllegalArgumentException if {@code channel} was not built by {@link TernChannelBuilder}
   */
  public static ConnectionInfo connectionInfo(Channel channel) {
    Connection c = tern(channel).connections().current();
    return c == null ? null : c.info();
  }

  /**
   * The name of the transport the channel is connected with (with several backends connected, the
   * first ready backend's).
   *
   * @param channel a channel built by {@link TernChannelBuilder} (itself, not one wrapped with
   *     interceptors)
   * @return the transport's name, as its provider gives it, or null while not connected
   * @throws IllegalArgumentException if {@code channel} was not built by {@link TernChannelBuilder}
   */
  public static String selectedTransport(Channel channel) {
    Connection c = tern(channel).connections().current();
    return c == null ? null : c.provider.name();
  }

  /**
   * Why the channel's connection runs over its transport: how the connect's race went (which
   * transport was ready first and when, which failed and why, which were still connecting or never
   * started) and which transports were left out and why (marked broken after a failure, refused
   * by a call policy). For logs and diagnostics; the wording may change.
   *
   * @param channel a channel built by {@link TernChannelBuilder} (itself, not one wrapped with
   *     interceptors)
   * @return a sentence, or null while not connected
   * @throws IllegalArgumentException if {@code channel} was not built by {@link TernChannelBuilder}
   */
  public static String selectionReason(Channel channel) {
    Connection c = tern(channel).connections().current();
    return c == null ? null : c.selection;
  }

  /**
   * Tells the channel that the device's network changed: call it from the platform's network
   * callback (on Android, {@code ConnectivityManager.NetworkCallback.onAvailable} and {@code
   * onLost}; docs/mobile.md). The channel's {@link TransportMemory} forgets what it learned (marks
   * of broken transports, the last winner), since it held for the old network. A connection whose
   * transport can move to the new network (Tern's {@code udp}, RFC 9000 §9.2) moves at once, its
   * calls carrying on; any other is left, as grpc-java's Android channel leaves its connections on
   * a network change: its calls finish on it if they still can, and the next call connects anew.
   *
   * @param channel a channel built by {@link TernChannelBuilder} (itself, not one wrapped with
   *     interceptors)
   * @throws IllegalArgumentException if {@code channel} was not built by {@link TernChannelBuilder}
   */
  public static void networkChanged(Channel channel) {
    TernManagedChannel c = tern(channel);
    c.memory().networkChanged();
    c.connections().networkChanged();
  }

  private static TernManagedChannel tern(Channel channel) {
    if (!(channel instanceof TernManagedChannel)) {
      throw new IllegalArgumentException("not a channel built by TernChannelBuilder: "
          + (channel == null ? "null" : channel.getClass().getName()));
    }
    return (TernManagedChannel) channel;
  }
}
