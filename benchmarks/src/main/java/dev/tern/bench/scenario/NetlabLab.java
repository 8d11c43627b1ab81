package dev.tern.bench.scenario;

import dev.tern.netlab.emu.NetlabEmulator;
import dev.tern.netlab.emu.Netns;
import dev.tern.netlab.link.LinkProfiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The netlab IP-level emulator: server and client in two network namespaces, every IP packet
 * between them crossing the profile's link model; kernel TCP's congestion control set in both.
 */
final class NetlabLab implements Lab {
  private final NetlabEmulator emu;
  private final LinkSpec link;
  private final String cc;
  private final Path packetLog;
  private final List<double[]> windows = new ArrayList<>();
  private List<Integer> roundTrips = List.of();
  private String clientAddress;
  private int moves;

  NetlabLab(String profile, long seed, String cc, Path packetLog) {
    NetlabEmulator.Builder b = NetlabEmulator.builder().profile(LinkProfiles.get(profile)).seed(seed)
        .packetLog(packetLog);
    if (cc != null) {
      b.tcpCongestionControl(cc);
    }
    this.emu = b.start();
    this.link = LinkSpec.of(emu.profile());
    this.cc = cc;
    this.packetLog = packetLog;
    this.clientAddress = emu.clientAddress();
  }

  @Override
  public LinkSpec link() {
    return link;
  }

  @Override
  public String serverBindHost() {
    return emu.serverAddress();
  }

  @Override
  public String serverHostForClient() {
    return emu.serverAddress();
  }

  @Override
  public List<String> serverCommand(List<String> command) {
    return Netns.execCommand(emu.serverNamespace(), command);
  }

  @Override
  public List<String> clientCommand(List<String> command) {
    return Netns.execCommand(emu.clientNamespace(), command);
  }

  @Override
  public String tcpCongestionControl() {
    return cc == null ? "namespace default" : cc;
  }

  @Override
  public synchronized void openWindow() {
    windows.add(new double[] {nowMs(), Double.MAX_VALUE});
  }

  @Override
  public synchronized void closeWindow() {
    if (!windows.isEmpty()) {
      windows.get(windows.size() - 1)[1] = nowMs();
    }
  }

  private double nowMs() {
    return (System.nanoTime() - emu.startNs()) / 1e6;
  }

  @Override
  public List<Integer> roundTrips() {
    return roundTrips;
  }

  @Override
  public synchronized void moveClientAddress() {
    String to = ClientAddressMove.address(++moves);
    for (List<String> cmd : ClientAddressMove.commands(emu.clientNamespace(), emu.serverNamespace(),
        NetlabEmulator.DEVICE, clientAddress, to, emu.serverAddress())) {
      run(cmd);
    }
    clientAddress = to;
  }

  private static void run(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("timed out: " + String.join(" ", cmd));
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException("failed (exit " + p.exitValue() + "): " + String.join(" ", cmd) + ": "
            + new String(out, StandardCharsets.UTF_8).trim());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", cmd), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + String.join(" ", cmd), e);
    }
  }

  @Override
  public void close() throws Exception {
    emu.checkHealthy();
    emu.close();
    synchronized (this) {
      roundTrips = PacketLogRoundTrips.count(packetLog, windows);
    }
  }
}
