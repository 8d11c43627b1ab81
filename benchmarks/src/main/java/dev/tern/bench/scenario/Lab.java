package dev.tern.bench.scenario;

import java.util.List;
import java.util.Map;

/**
 * Where the client and server processes of one variant run and what joins them: the emulated link
 * between two network namespaces, or plain loopback. The benchmark talks to the emulator only
 * through this.
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

  /** The kernel TCP congestion control in force on both sides, or {@code host} where the lab cannot choose it. */
  String tcpCongestionControl();

  /** Opens a window of the packet log (one per setup measurement); labs without a log ignore it. */
  void openWindow();

  /** Closes the window opened last. */
  void closeWindow();

  /**
   * Round trips of the first connection opened in each window, in window order, read from the
   * packet log once the lab is closed; empty without a packet log. A round trip is a turn of
   * direction from client-to-server to server-to-client among the connection's packets that carry
   * a payload or a SYN/FIN (pure ACKs left out).
   */
  List<Integer> roundTrips();

  /**
   * Moves the client to a new source address while connections are open: packets the client sends
   * afterwards leave from the new address and the server can answer it; the old address is gone.
   *
   * @throws UnsupportedOperationException where the lab has no address to move
   */
  default void moveClientAddress() {
    throw new UnsupportedOperationException("this lab cannot move the client's address");
  }

  /**
   * Blocks UDP between client and server in both directions ({@code true}: every UDP packet is
   * dropped silently, as by a middlebox) or lets it pass again ({@code false}).
   *
   * @throws UnsupportedOperationException where the lab cannot filter packets
   */
  default void blockUdp(boolean block) {
    throw new UnsupportedOperationException("this lab cannot block UDP");
  }

  /** Marks the start of repetition {@code rep}'s bulk download in the packet log; labs without a log ignore it. */
  default void openDownloadWindow(int rep) {}

  /** Marks the end of repetition {@code rep}'s bulk download. */
  default void closeDownloadWindow(int rep) {}

  /**
   * The bulk downloads as the link delivered them, by repetition, read from the packet log once
   * the lab is closed; empty without a packet log.
   */
  default Map<Integer, LinkGoodput.Download> downloads() {
    return Map.of();
  }

  /** Marks the instant repetition {@code rep}'s feed is about to cancel every image; labs without a log ignore it. */
  default void openCancelWindow(int rep) {}

  /**
   * Ends repetition {@code rep}'s cancel window, once a call made after the cancels has come back;
   * {@code images} of them were still loading when cancelled.
   */
  default void closeCancelWindow(int rep, int images) {}

  /**
   * Per repetition, the server's payload bytes that crossed the link after the feed's cancel had
   * reached the server, per image cancelled ({@link CancelWaste}), read from the packet log once
   * the lab is closed; empty without a packet log.
   */
  default Map<Integer, Double> cancelWaste() {
    return Map.of();
  }

  /** A line on how the lab kept time and what it dropped on purpose (emulator lateness, blocked UDP), or null. */
  default String health() {
    return null;
  }

  /** Removes whatever the lab created (namespaces, devices, settings it changed). */
  @Override
  void close() throws Exception;
}
