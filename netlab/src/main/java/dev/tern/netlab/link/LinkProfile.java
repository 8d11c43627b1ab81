package dev.tern.netlab.link;

/**
 * A named, two-way link: the client-to-server direction (the uplink of a phone) and the
 * server-to-client direction (its downlink).
 */
public final class LinkProfile {
  private final String name;
  private final String description;
  private final LinkConfig clientToServer;
  private final LinkConfig serverToClient;

  /**
   * Creates a profile.
   *
   * @param name the profile's name
   * @param description one line saying what it models
   * @param clientToServer the uplink direction
   * @param serverToClient the downlink direction
   */
  public LinkProfile(String name, String description, LinkConfig clientToServer,
      LinkConfig serverToClient) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    if (clientToServer == null || serverToClient == null) {
      throw new IllegalArgumentException("profile " + name + ": both directions are required");
    }
    this.name = name;
    this.description = description == null ? "" : description;
    this.clientToServer = clientToServer;
    this.serverToClient = serverToClient;
  }

  /** The profile's name. */
  public String name() {
    return name;
  }

  /** What the profile models. */
  public String description() {
    return description;
  }

  /** The client-to-server (uplink) direction. */
  public LinkConfig clientToServer() {
    return clientToServer;
  }

  /** The server-to-client (downlink) direction. */
  public LinkConfig serverToClient() {
    return serverToClient;
  }

  /** Mean round-trip propagation time (both directions' mean delays). */
  public long rttNs() {
    return clientToServer.propagationDelayNs() + serverToClient.propagationDelayNs();
  }

  /**
   * Ideal time for a request of {@code requestBytes} and its response of {@code responseBytes},
   * each sent as one packet: RTT plus both serialisations at the mean rates.
   */
  public long idealRoundTripNs(int requestBytes, int responseBytes) {
    return clientToServer.idealOneWayNs(requestBytes) + serverToClient.idealOneWayNs(responseBytes);
  }

  @Override
  public String toString() {
    return name + " (" + description + "): up " + clientToServer + ", down " + serverToClient;
  }
}
