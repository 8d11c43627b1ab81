package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.PeerProcess;
import dev.tern.netlab.emu.NetlabEmulator;
import dev.tern.netlab.emu.Netns;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A download over {@code udp} survives the client's address changing mid-way with data in flight
 * (RFC 9000 §9.2, §9.3): client and server run as processes ({@link UdpMovePeer}) in netlab's two
 * namespaces; once a third of the download has arrived, the client namespace moves to a new
 * address and the old one is removed ({@link NetlabEmulator#moveClientAddress()}), so the
 * client's socket can no longer send; the client reads on once the move is done, so two thirds of
 * the download cross the network after it (on {@code mobile}, with part of the window in flight
 * during it). The client must move to a new socket, receive every byte,
 * and the server must end the call talking to the new address. This is the case the QUIC
 * transport's {@code ClientAddressChangeTest} has to leave disabled. Needs root (namespaces, TUN
 * devices) and fails saying so without it: the tests run as root, so a missing privilege must not
 * pass as a skip.
 */
// Needs root (network namespaces); a machine without it runs `mvn verify -DexcludedGroups=root`.
@Tag("root")
class UdpClientAddressChangeTest {
  /** On netlab's unshaped link. */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aDownloadCompletesWithEveryByteAcrossAChangeOfTheClientsAddress() throws Exception {
    downloadAcrossAMove(LinkProfiles.get("lan"));
  }

  /** On the {@code mobile} link: 200-300 ms round trips and loss, with the window in flight. */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aDownloadCompletesAcrossAChangeOfAddressOnAMobileLink() throws Exception {
    downloadAcrossAMove(LinkProfiles.get("mobile"));
  }

  private static void downloadAcrossAMove(LinkProfile profile) throws Exception {
    Netns.requireRoot(); // fails with the reason, like netlab's own self-test: the tests run as root
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    String peer = UdpMovePeer.class.getName();
    try (NetlabEmulator emu = NetlabEmulator.builder().profile(profile).start();
        PeerProcess server = PeerProcess.start(emu.serverProcess(
            NetlabEmulator.javaCommand(cp, peer, "server", emu.serverAddress())))) {
      String[] listening = server.expect("PORT ", 30).split(" ");
      try (PeerProcess client = PeerProcess.start(emu.clientProcess(
          NetlabEmulator.javaCommand(cp, peer, "client", emu.serverAddress(), listening[1], listening[2])))) {
        client.expect("MOVE", 30);
        long moveStart = System.nanoTime();
        String newAddress = emu.moveClientAddress();
        System.out.printf("UdpClientAddressChangeTest: %s: moved to %s in %d ms%n", profile.name(), newAddress,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - moveStart));
        client.send("go");
        String done = client.expect("DONE ", 60);
        String served = server.expect("SERVED ", 30);
        System.out.println("UdpClientAddressChangeTest: " + profile.name() + ": " + done + "; " + served);
        String[] f = done.split(" ", 5);
        assertThat(f[2]).as("call status: %s", done).isEqualTo("OK");
        assertThat(Long.parseLong(f[1])).as("bytes received")
            .isEqualTo((long) UdpMovePeer.MESSAGES * UdpMovePeer.SIZE);
        assertThat(Long.parseLong(f[3])).as("the client's own address changes").isEqualTo(1);
        // The server answered the end of the call on the new address: the connection moved.
        assertThat(served).contains("/" + newAddress + ":");
        emu.checkHealthy();
      }
    }
  }
}
