package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.emu.NetlabEmulator;
import dev.tern.netlab.emu.Netns;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A download over QUIC survives the client's address changing mid-way (RFC 9000 §9): client and
 * server run as processes in netlab's two namespaces; once a third of the download has arrived the
 * client namespace gains a new address, its route to the server prefers it as source, and the old
 * address is removed. The client must receive every byte and the server must end the call talking
 * to the new address. Needs root (namespaces, TUN devices) and fails saying so without it: the
 * tests run as root, so a missing privilege must not pass as a skip.
 */
// Needs root (network namespaces); a machine without it runs `mvn verify -DexcludedGroups=root`.
@Tag("root")
class ClientAddressChangeTest {
  /** The client's address after the move; in the benchmarking range like netlab's own. */
  private static final String NEW_ADDRESS = "198.18.7.1";

  /**
   * On netlab's unshaped link, the client quiet at the move: it stopped reading, and its 64 KiB
   * stream window was filled and has arrived, so nothing is in flight towards the old address.
   */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aDownloadCompletesWithEveryByteAcrossAChangeOfTheClientsAddress() throws Exception {
    downloadAcrossAMove(LinkProfiles.get("lan"), true);
  }

  /** The same on the {@code mobile} link: 200-300 ms round trips, path validation takes one. */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aDownloadCompletesAcrossAChangeOfAddressOnAMobileLink() throws Exception {
    downloadAcrossAMove(LinkProfiles.get("mobile"), true);
  }

  /**
   * On the {@code mobile} link with the client reading on, the last packets of the window are in
   * flight towards the old address at the move. The server follows the client (path validated,
   * later packets reach the new address), but the quiche inside Netty 4.2.18 never declares the
   * packets left on the old path lost, so their stream data is never sent again and the stream
   * keeps a hole: the download stalls until the call's deadline or the idle timeout.
   */
  @Test
  @Disabled("quiche (Netty 4.2.18) never retransmits stream data that was in flight on the old path")
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aDownloadCompletesWhenDataIsInFlightAtTheMove() throws Exception {
    downloadAcrossAMove(LinkProfiles.get("mobile"), false);
  }

  private static void downloadAcrossAMove(LinkProfile profile, boolean quiet) throws Exception {
    Netns.requireRoot(); // fails with the reason, like netlab's own self-test: the tests run as root
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    String peer = MigrationPeer.class.getName();
    List<Process> processes = new ArrayList<>();
    try (NetlabEmulator emu = NetlabEmulator.builder().profile(profile).start()) {
      Process server = start(processes, emu.serverProcess(
          NetlabEmulator.javaCommand(cp, peer, "server", emu.serverAddress())));
      BufferedReader serverOut = reader(server);
      String[] listening = expect(serverOut, "PORT ").split(" ");
      Process client = start(processes, emu.clientProcess(
          NetlabEmulator.javaCommand(cp, peer, "client", emu.serverAddress(), listening[1], listening[2],
          quiet ? "quiet" : "busy")));
      BufferedReader clientOut = reader(client);
      expect(clientOut, "MOVE");
      moveClient(emu);
      Writer go = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8);
      go.write("go\n");
      go.flush();
      String done = expect(clientOut, "DONE ");
      String served = expect(serverOut, "SERVED ");
      String[] f = done.split(" ", 5);
      assertThat(f[2]).as("call status: %s", done).isEqualTo("OK");
      assertThat(Long.parseLong(f[1])).as("bytes received").isEqualTo((long) MigrationPeer.MESSAGES * MigrationPeer.SIZE);
      // The connection moved: quiche on the server has an active path to the new address and has
      // sent on it (its own path statistics, besides the peer address Netty reports).
      Writer ask = new OutputStreamWriter(server.getOutputStream(), StandardCharsets.UTF_8);
      ask.write("peer\n");
      ask.flush();
      String seen = expect(serverOut, "PEER ");
      System.out.println("ClientAddressChangeTest[" + profile.name() + "]: " + seen);
      assertThat(served).as("Netty's peer address when the call ended").contains("/" + NEW_ADDRESS + ":");
      assertThat(seen).as("the server's paths")
          .containsPattern("/" + java.util.regex.Pattern.quote(NEW_ADDRESS) + ":\\d+ active [1-9]");
      emu.checkHealthy();
    } finally {
      for (Process p : processes) {
        p.getOutputStream().close();
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  /**
   * The client namespace moves to {@link #NEW_ADDRESS}: the server namespace learns the way back,
   * the client gains the address as a host address (a /32 of its own, so it stays when the old
   * point-to-point address goes), the route to the server prefers it, and the old address is
   * removed (its removal may take the route along, so the route is set again).
   */
  private static void moveClient(NetlabEmulator emu) throws Exception {
    String dev = NetlabEmulator.DEVICE;
    String server = emu.serverAddress() + "/32";
    String cli = emu.clientNamespace();
    ip(emu.serverNamespace(), "route", "replace", NEW_ADDRESS + "/32", "dev", dev);
    ip(cli, "addr", "add", NEW_ADDRESS + "/32", "dev", dev);
    ip(cli, "route", "replace", server, "dev", dev, "src", NEW_ADDRESS);
    ip(cli, "addr", "del", emu.clientAddress(), "peer", server, "dev", dev);
    ip(cli, "route", "replace", server, "dev", dev, "src", NEW_ADDRESS);
  }

  private static void ip(String ns, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("ip", "-n", ns));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("%s finished", cmd).isTrue();
    assertThat(p.exitValue()).as("%s: %s", cmd, out).isZero();
  }

  private static Process start(List<Process> processes, ProcessBuilder pb) throws Exception {
    Process p = pb.redirectError(ProcessBuilder.Redirect.INHERIT).start();
    processes.add(p);
    return p;
  }

  private static BufferedReader reader(Process p) {
    return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
  }

  /** The next line starting with {@code prefix} (others are echoed), within 30 s. */
  private static String expect(BufferedReader in, String prefix) throws Exception {
    return CompletableFuture.supplyAsync(() -> {
      try {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (line.startsWith(prefix)) {
            return line;
          }
          System.out.println("peer: " + line);
        }
        throw new IllegalStateException("peer ended before printing " + prefix);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }).get(30, TimeUnit.SECONDS);
  }
}
