package dev.tern.bench.scenario;

import java.util.List;

/** Both processes on this host's loopback: no shaping, no namespaces, no packet log. */
public final class LoopbackLab implements Lab {
  private final LinkSpec link = LinkSpec.LOOPBACK;

  @Override
  public LinkSpec link() {
    return link;
  }

  @Override
  public String serverBindHost() {
    return "127.0.0.1";
  }

  @Override
  public String serverHostForClient() {
    return "127.0.0.1";
  }

  @Override
  public List<String> serverCommand(List<String> command) {
    return command;
  }

  @Override
  public List<String> clientCommand(List<String> command) {
    return command;
  }

  @Override
  public String useTcpCongestionControl(String algorithm) {
    return "host";
  }

  @Override
  public void markPacketLog() {}

  @Override
  public int roundTripsSinceMark() {
    return -1;
  }

  @Override
  public void close() {}
}
