package dev.tern.netlab.emu;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfile;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The IP-level link emulator: two network namespaces, a client one and a server one, each with a
 * TUN device {@code tern0} (MTU 1500) holding a point-to-point address from the benchmarking
 * range (client {@value #CLIENT_ADDRESS}, server {@value #SERVER_ADDRESS}). A forwarder in this
 * process carries every IP packet between the two TUNs through one {@link Link} per direction,
 * in real time, so kernel TCP, QUIC and UDP all cross the same emulated link.
 *
 * <pre>{@code
 * try (NetlabEmulator emu = NetlabEmulator.builder()
 *     .profile(LinkProfiles.get("mobile")).seed(1).start()) {
 *   Process server = emu.serverProcess(List.of("java", "-cp", cp, "Server")).start();
 *   Process client = emu.clientProcess(List.of("java", "-cp", cp, "Client", emu.serverAddress())).start();
 * }
 * }</pre>
 *
 * <p>Needs root. Namespaces are removed on {@link #close()}, by a shutdown hook, and, should the
 * process be killed outright, by the next emulator that starts (stale {@code tern-*} namespaces
 * whose owning process is gone).
 */
public final class NetlabEmulator implements AutoCloseable {
  /** The client namespace's address. */
  public static final String CLIENT_ADDRESS = "198.18.1.1";
  /** The server namespace's address. */
  public static final String SERVER_ADDRESS = "198.19.1.1";
  /** The TUN device's name inside each namespace. */
  public static final String DEVICE = "tern0";

  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final long pid = ProcessHandle.current().pid();
  private final String clientNs;
  private final String serverNs;
  private final List<Tun> tuns = new ArrayList<>();
  private final List<String> namespaces = new ArrayList<>();
  private final CongestionControl cc = new CongestionControl();
  private final Thread shutdownHook = new Thread(this::teardown, "netlab-teardown");
  private final LinkProfile profile;
  private final long startNs;
  private final long seed;
  private volatile long epochNs;
  private volatile boolean udpBlocked;
  private PacketLog log;
  private Forwarder c2s;
  private Forwarder s2c;
  private boolean closed;
  private int moves;
  private volatile String clientAddress = CLIENT_ADDRESS;

  private NetlabEmulator(Builder b) {
    int instance = INSTANCES.getAndIncrement();
    String suffix = instance == 0 ? "" : "-" + instance;
    this.clientNs = Netns.PREFIX + "cli-" + pid + suffix;
    this.serverNs = Netns.PREFIX + "srv-" + pid + suffix;
    this.profile = b.profile;
    this.startNs = System.nanoTime();
    this.epochNs = startNs;
    this.seed = b.seed;
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    try {
      setUp(b, instance);
    } catch (RuntimeException e) {
      teardown();
      removeHook();
      throw e;
    }
  }

  /** A new builder (defaults: the {@code lan} profile's unshaped link, seed 1, no log). */
  public static Builder builder() {
    return new Builder();
  }

  private void setUp(Builder b, int instance) {
    Netns.removeStale();
    Tun cli = openTun("tc" + pid + "_" + instance);
    Tun srv = openTun("ts" + pid + "_" + instance);
    configure(clientNs, cli, CLIENT_ADDRESS, SERVER_ADDRESS);
    configure(serverNs, srv, SERVER_ADDRESS, CLIENT_ADDRESS);
    if (b.tcpCongestionControl != null) {
      cc.apply(b.tcpCongestionControl, clientNs, serverNs);
    }
    if (b.packetLog != null) {
      log = new PacketLog(b.packetLog, startNs);
    }
    c2s = new Forwarder("c2s", cli, srv, upLink(startNs), log, b.seed + 1);
    s2c = new Forwarder("s2c", srv, cli, downLink(startNs), log, b.seed + 2);
    if (b.blockUdp) {
      blockUdp(true);
    }
    c2s.start();
    s2c.start();
  }

  private Link upLink(long epoch) {
    return new Link(profile.clientToServer(), seed, epoch);
  }

  private Link downLink(long epoch) {
    return new Link(profile.serverToClient(), seed ^ 0x5DEECE66DL, epoch);
  }

  /**
   * Restarts both directions' links from a new epoch (now) with the same configuration and
   * seed, and zeroes their counters: a run started right after meets the same channel (trace
   * position, loss bursts, delay wander) as every other run started right after a restart. Use
   * it between transports or repetitions compared side by side.
   *
   * @return the new epoch ({@code System.nanoTime()})
   */
  public long restartLinks() {
    long now = System.nanoTime();
    c2s.replaceLink(upLink(now));
    s2c.replaceLink(downLink(now));
    epochNs = now;
    return now;
  }

  /**
   * Blocks UDP in both directions ({@code true}), as a middlebox that filters it would: every UDP
   * packet is dropped before the link, silently (no ICMP), counted in {@link
   * LinkCounters#blockedUdp()} and logged with the verdict {@code UDP_BLOCKED}; other protocols
   * pass. {@code false} lets UDP through again. Takes effect for the next packet read.
   */
  public void blockUdp(boolean block) {
    c2s.blockUdp(block);
    s2c.blockUdp(block);
    udpBlocked = block;
  }

  /** Whether UDP is blocked now. */
  public boolean udpBlocked() {
    return udpBlocked;
  }

  /** The {@code System.nanoTime()} at which the links' channel processes started. */
  public long epochNs() {
    return epochNs;
  }

  private Tun openTun(String name) {
    Tun t = Tun.open(name);
    tuns.add(t);
    return t;
  }

  private void configure(String ns, Tun tun, String local, String peer) {
    Netns.run("ip", "netns", "add", ns);
    namespaces.add(ns);
    try {
      // Only IPv4 crosses the link; keep IPv6 chatter (router solicitations) off it. Set before
      // the device arrives, which takes the namespace's defaults.
      Netns.runIn(ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
          "net.ipv6.conf.default.disable_ipv6=1");
    } catch (IllegalStateException ignored) {
      // IPv6 may be absent from this kernel; nothing to silence then.
    }
    Netns.run("ip", "link", "set", "dev", tun.name(), "netns", ns);
    Netns.run("ip", "-n", ns, "link", "set", "dev", tun.name(), "name", DEVICE);
    Netns.run("ip", "-n", ns, "link", "set", "dev", DEVICE, "mtu", "1500", "up");
    Netns.run("ip", "-n", ns, "addr", "add", local, "peer", peer + "/32", "dev", DEVICE);
    Netns.run("ip", "-n", ns, "link", "set", "dev", "lo", "up");
  }

  /** The client namespace's name ({@code tern-cli-<pid>}). */
  public String clientNamespace() {
    return clientNs;
  }

  /** The server namespace's name ({@code tern-srv-<pid>}). */
  public String serverNamespace() {
    return serverNs;
  }

  /** The client's address, as the server sees it: {@link #CLIENT_ADDRESS} until it is moved. */
  public String clientAddress() {
    return clientAddress;
  }

  /**
   * Moves the client namespace to a new source address while the link runs, as a phone that
   * changes networks: the server namespace first learns a route back to the new address, the
   * client gains it, its route to the server prefers it as source, and the old address is
   * removed, which leaves sockets bound to it without an address (the kernel refuses their
   * sends). The forwarder carries IP packets whatever their addresses, so nothing else changes.
   * The n-th move goes to {@code 198.18.<n+1>.1}, inside the benchmarking range 198.18.0.0/15.
   *
   * @return the client's new address
   * @throws IllegalStateException if an {@code ip} command fails (naming it and its output)
   */
  public synchronized String moveClientAddress() {
    String to = movedAddress(moves + 1);
    for (List<String> cmd : moveCommands(clientNs, serverNs, DEVICE, clientAddress, to, SERVER_ADDRESS)) {
      Netns.run(cmd.toArray(new String[0]));
    }
    moves++;
    clientAddress = to;
    return to;
  }

  /** The address of the {@code n}-th move (n from 1): {@code 198.18.<n+1>.1}. */
  static String movedAddress(int n) {
    if (n < 1 || n > 250) {
      throw new IllegalArgumentException("move number must be in 1..250, was " + n);
    }
    return "198.18." + (n + 1) + ".1";
  }

  /** The {@code ip} commands, in order, that move the client from {@code from} to {@code to}. */
  static List<List<String>> moveCommands(String clientNs, String serverNs, String device, String from,
      String to, String server) {
    return List.of(
        List.of("ip", "-n", serverNs, "route", "replace", to + "/32", "dev", device),
        // The new address shares the old one's peer prefix, so it is a secondary: without
        // promotion, removing the primary would remove it too.
        List.of("ip", "netns", "exec", clientNs, "sysctl", "-q", "-w",
            "net.ipv4.conf." + device + ".promote_secondaries=1"),
        // Point-to-point like the emulator's own address, so every address is removed the same way.
        List.of("ip", "-n", clientNs, "addr", "add", to, "peer", server + "/32", "dev", device),
        List.of("ip", "-n", clientNs, "route", "replace", server + "/32", "dev", device, "src", to),
        List.of("ip", "-n", clientNs, "addr", "del", from, "peer", server + "/32", "dev", device),
        // Deleting the old address may take the route with it; put it back, preferring the new source.
        List.of("ip", "-n", clientNs, "route", "replace", server + "/32", "dev", device, "src", to));
  }

  /** The server's address, for the client to connect to. */
  public String serverAddress() {
    return SERVER_ADDRESS;
  }

  /** The emulated link. */
  public LinkProfile profile() {
    return profile;
  }

  /** The {@code System.nanoTime()} at which the emulator started (the packet log's zero). */
  public long startNs() {
    return startNs;
  }

  /** A process builder running {@code command} in the client namespace. */
  public ProcessBuilder clientProcess(List<String> command) {
    return Netns.processBuilder(clientNs, command);
  }

  /** A process builder running {@code command} in the server namespace. */
  public ProcessBuilder serverProcess(List<String> command) {
    return Netns.processBuilder(serverNs, command);
  }

  /**
   * A command that starts a JVM like this one (same {@code java} binary) on {@code classPath}.
   *
   * @param classPath the class path, e.g. {@code System.getProperty("java.class.path")}
   * @param mainClass the main class
   * @param args its arguments
   */
  public static List<String> javaCommand(String classPath, String mainClass, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(mainClass);
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Counters of the client-to-server direction. */
  public LinkCounters clientToServer() {
    return c2s.counters();
  }

  /** Counters of the server-to-client direction. */
  public LinkCounters serverToClient() {
    return s2c.counters();
  }

  /** Throws if a forwarding thread died. */
  public void checkHealthy() {
    for (Forwarder f : new Forwarder[] {c2s, s2c}) {
      if (f != null && f.failure() != null) {
        throw new IllegalStateException("netlab forwarder failed", f.failure());
      }
    }
  }

  /** Stops forwarding and removes the namespaces and devices. */
  @Override
  public void close() {
    teardown();
    removeHook();
  }

  private void removeHook() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // The hook is running or has run.
    }
  }

  private synchronized void teardown() {
    if (closed) {
      return;
    }
    closed = true;
    List<RuntimeException> errors = new ArrayList<>();
    for (Forwarder f : new Forwarder[] {c2s, s2c}) {
      if (f != null) {
        try {
          f.stop();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    for (Tun t : tuns) {
      t.close();
    }
    for (String ns : namespaces) {
      try {
        Netns.delete(ns);
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    try {
      cc.restore(pid);
    } catch (RuntimeException e) {
      errors.add(e);
    }
    if (log != null) {
      log.close();
    }
    if (!errors.isEmpty()) {
      IllegalStateException e = new IllegalStateException("netlab teardown incomplete");
      errors.forEach(e::addSuppressed);
      throw e;
    }
  }

  /** Configures and starts a {@link NetlabEmulator}. */
  public static final class Builder {
    private LinkProfile profile = new LinkProfile("custom", "unshaped",
        LinkConfig.unlimited(), LinkConfig.unlimited());
    private long seed = 1;
    private Path packetLog;
    private String tcpCongestionControl;
    private boolean blockUdp;

    private Builder() {}

    /** Starts with UDP blocked in both directions (see {@link NetlabEmulator#blockUdp}). */
    public Builder blockUdp(boolean block) {
      blockUdp = block;
      return this;
    }

    /** The link to emulate (both directions). */
    public Builder profile(LinkProfile p) {
      if (p == null) {
        throw new IllegalArgumentException("profile must not be null");
      }
      profile = p;
      return this;
    }

    /** Explicit directions: client-to-server and server-to-client. */
    public Builder links(LinkConfig clientToServer, LinkConfig serverToClient) {
      return profile(new LinkProfile("custom", "explicit", clientToServer, serverToClient));
    }

    /** Seeds both directions' random processes. */
    public Builder seed(long s) {
      seed = s;
      return this;
    }

    /**
     * Writes the per-packet log to {@code file}: tab-separated, one line per packet entering the
     * link ({@code t_ms dir bytes verdict deliver_ms proto src sport dst dport flags payload};
     * the format is described in the module's README).
     */
    public Builder packetLog(Path file) {
      packetLog = file;
      return this;
    }

    /** Kernel TCP congestion control in both namespaces ({@code cubic}, {@code bbr}, {@code reno}). */
    public Builder tcpCongestionControl(String algorithm) {
      if (algorithm != null && !algorithm.matches("[a-z0-9_]+")) {
        throw new IllegalArgumentException("tcpCongestionControl must be a kernel algorithm name, got '" + algorithm + "'");
      }
      tcpCongestionControl = algorithm;
      return this;
    }

    /**
     * Creates the namespaces and devices and starts forwarding.
     *
     * @throws IllegalStateException when not root, or when a system command fails (named)
     */
    public NetlabEmulator start() {
      Netns.requireRoot();
      return new NetlabEmulator(this);
    }
  }
}
