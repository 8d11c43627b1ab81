package dev.tern.bench.scenario;

import dev.tern.netlab.emu.LinkCounters;
import dev.tern.netlab.emu.NetlabEmulator;
import dev.tern.netlab.emu.Netns;
import dev.tern.netlab.link.LinkProfile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

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
  private final Map<Integer, double[]> downloadWindows = new TreeMap<>();
  private Map<Integer, LinkGoodput.Download> downloads = Map.of();
  private final Map<Integer, double[]> cancelWindows = new TreeMap<>();
  private final Map<Integer, Integer> cancelledImages = new TreeMap<>();
  private Map<Integer, Double> cancelWaste = Map.of();
  private String health;

  NetlabLab(LinkProfile profile, long seed, String cc, Path packetLog) {
    NetlabEmulator.Builder b = NetlabEmulator.builder().profile(profile).seed(seed)
        .packetLog(packetLog);
    if (cc != null) {
      b.tcpCongestionControl(cc);
    }
    this.emu = b.start();
    this.link = LinkSpec.of(emu.profile());
    this.cc = cc;
    this.packetLog = packetLog;
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
  public void blockUdp(boolean block) {
    emu.blockUdp(block);
  }

  @Override
  public synchronized void openDownloadWindow(int rep) {
    downloadWindows.put(rep, new double[] {nowMs(), Double.MAX_VALUE});
  }

  @Override
  public synchronized void closeDownloadWindow(int rep) {
    double[] w = downloadWindows.get(rep);
    if (w != null) {
      w[1] = nowMs();
    }
  }

  @Override
  public synchronized void openCancelWindow(int rep) {
    cancelWindows.put(rep, new double[] {nowMs(), Double.MAX_VALUE});
  }

  @Override
  public synchronized void closeCancelWindow(int rep, int images) {
    double[] w = cancelWindows.get(rep);
    if (w != null) {
      w[1] = nowMs();
      cancelledImages.put(rep, images);
    }
  }

  @Override
  public synchronized Map<Integer, Double> cancelWaste() {
    return cancelWaste;
  }

  @Override
  public synchronized Map<Integer, LinkGoodput.Download> downloads() {
    return downloads;
  }

  @Override
  public synchronized String health() {
    return health;
  }

  @Override
  public List<Integer> roundTrips() {
    return roundTrips;
  }

  @Override
  public void moveClientAddress() {
    emu.moveClientAddress();
  }

  @Override
  public void close() throws Exception {
    emu.checkHealthy();
    LinkCounters up = emu.clientToServer();
    LinkCounters down = emu.serverToClient();
    emu.close();
    synchronized (this) {
      health = String.format(Locale.ROOT, "emulator lateness mean/max: c2s %.2f/%.1f ms, s2c %.2f/%.1f ms; "
          + "UDP packets blocked: %d", up.meanLateNs() / 1e6, up.maxLateNs() / 1e6, down.meanLateNs() / 1e6,
          down.maxLateNs() / 1e6, up.blockedUdp() + down.blockedUdp());
      roundTrips = PacketLogRoundTrips.count(packetLog, windows);
      downloads = downloadWindows.isEmpty() ? Map.of() : LinkGoodput.measure(packetLog, downloadWindows);
      Map<Integer, Double> waste = new TreeMap<>();
      if (!cancelledImages.isEmpty()) {
        CancelWaste.measure(packetLog, cancelWindows).forEach((rep, bytes) -> {
          Integer n = cancelledImages.get(rep);
          if (n != null && n > 0) {
            waste.put(rep, (double) bytes / n);
          }
        });
      }
      cancelWaste = waste;
    }
  }
}
