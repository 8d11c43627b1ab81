package dev.tern.bench.scenario;

import java.util.List;

/** Both processes on this host's loopback: no shaping, no namespaces, no packet log. */
public final class LoopbackLab implements Lab {
  @Override
  public LinkSpec link() {
    return LinkSpec.LOOPBACK;
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
  public String tcpCongestionControl() {
    return "host";
  }

  @Override
  public void openWindow() {}

  @Override
  public void closeWindow() {}

  @Override
  public List<Integer> roundTrips() {
    return List.of();
  }

  @Override
  public void close() {}
}
