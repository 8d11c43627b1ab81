package dev.tern.bench.scenario;

import java.util.List;

/**
 * Where the client and server processes run and what joins them: the emulated link between two
 * network namespaces, or plain loopback. The benchmark talks to the emulator only through this.
 */
public interface Lab extends AutoCloseable {

  /** The link this lab imposes. */
  LinkSpec link();

  /** The address the server binds. */
  String serverBindHost();

  /** The server's address as the client reaches it. */
  String serverHostForClient();

  /** {@code command} made to run on the server's side (for example prefixed with {@code ip netns exec}). */
  List<String> serverCommand(List<String> command);

  /** {@code command} made to run on the client's side. */
  List<String> clientCommand(List<String> command);

  /**
   * Makes kernel TCP on both sides use {@code algorithm} ({@code cubic}, {@code bbr}); returns the
   * name actually in force, or {@code "host"} where the lab cannot choose it.
   */
  String useTcpCongestionControl(String algorithm) throws Exception;

  /** Starts recording packets (for round-trip counts); labs without a packet log ignore this. */
  void markPacketLog();

  /**
   * Round trips seen on the link since {@link #markPacketLog()}: the number of times the direction
   * of traffic turned from client-to-server to server-to-client. -1 without a packet log.
   */
  int roundTripsSinceMark();

  /** Removes whatever the lab created (namespaces, devices, settings it changed). */
  @Override
  void close() throws Exception;
}
