package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.packet.Versions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An attacker on the path drops the client's first INITIAL (encrypted test version 3) and answers
 * with a forged Version Negotiation packet listing only version 2, which both sides also speak.
 * The client cannot tell the forgery from the server's answer before the handshake (Version
 * Negotiation is unauthenticated, RFC 9000 §6.2), so it follows it; the downgrade is caught by
 * the handshake: the client's ClientHello carries {@code version_information} with the version
 * it first attempted (docs/protocol.md §3, §7), inside the Noise-encrypted, authenticated
 * message 1, and the version in use is in the Noise prologue. The server, which speaks the
 * attempted version, fails the handshake with VERSION_NEGOTIATION_ERROR, and so does the client.
 */
class VersionDowngradeTest {
  static final int V3 = Versions.ENCRYPTED_TEST_FIRST | 3;

  /** What one side was told when it closed. */
  static final class Closes implements ConnectionListener {
    final List<String> closes = new ArrayList<>();
    boolean handshakeDone;

    @Override
    public void onHandshakeComplete(Connection connection) {
      handshakeDone = true;
    }

    @Override
    public void onClosed(Connection connection, TransportError error, long code, String reason,
        boolean byPeer) {
      closes.add(error + " " + reason + (byPeer ? " (by peer)" : ""));
    }
  }

  private final Closes clientSide = new Closes();
  private final Closes serverSide = new Closes();
  private final ConnectionConfig both = ConnectionConfig.builder().versions(V3, Versions.V2)
      .build();
  private final ServerDemux server = new ServerDemux(Forge.seeded(both, 1), c -> serverSide, 8);
  private final Connection client = Connection.client(Forge.seeded(both, 3), clientSide);
  private final ByteBuffer buf = ByteBuffer.allocate(2048);
  private final ByteBuffer reply = ByteBuffer.allocate(2048);
  private long now;

  private byte[] clientDatagram() {
    buf.clear();
    int n = client.pollDatagram(buf, now);
    return n == 0 ? null : java.util.Arrays.copyOf(buf.array(), n);
  }

  /** Both sides talk directly until neither has anything to say, time moving on to timers. */
  private void talk() {
    for (int round = 0; round < 200; round++) {
      boolean moved = false;
      byte[] d;
      while ((d = clientDatagram()) != null) {
        moved = true;
        reply.clear();
        server.onDatagram(ByteBuffer.wrap(d), now, 0, reply);
        if (reply.position() > 0) {
          client.onDatagram(reply.flip(), now, 0);
        }
      }
      for (Connection c : server.connections()) {
        buf.clear();
        while (c.pollDatagram(buf.clear(), now) > 0) {
          moved = true;
          client.onDatagram(buf.flip(), now, 0);
        }
      }
      if (!moved) {
        long next = client.nextTimeoutNs();
        for (Connection c : server.connections()) {
          next = Math.min(next, c.nextTimeoutNs());
        }
        if (next == Long.MAX_VALUE || next > 10_000_000_000L) {
          return;
        }
        now = Math.max(now, next);
        client.onTimeout(now);
        for (Connection c : server.connections()) {
          if (c.nextTimeoutNs() <= now) {
            c.onTimeout(now);
          }
        }
      }
    }
  }

  @Test
  void withoutTheAttackerTheyAgreeOnVersion3() {
    talk();
    assertThat(client.version()).isEqualTo(V3);
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.connections()).singleElement()
        .satisfies(c -> assertThat(c.version()).isEqualTo(V3));
    assertThat(client.peerStaticKey()).as("an authenticated, encrypted handshake").isNotNull();
    assertThat(server.versionNegotiationsSent()).isZero();
  }

  @Test
  void aForgedVersionNegotiationIsCaughtByTheHandshake() {
    byte[] first = clientDatagram();
    ByteBuffer initial = ByteBuffer.wrap(first);
    PacketHeader h = new PacketHeader();
    assertThat(h.parse(initial, 0, 8)).isTrue();
    assertThat(h.version).isEqualTo(V3);
    // The attacker drops the INITIAL and answers in the server's place, echoing the IDs it saw.
    ByteBuffer forged = ByteBuffer.allocate(128);
    PacketWriter.writeVersionNegotiation(forged, 0x2a, initial, h.dcidOffset, h.dcidLength,
        h.scidOffset, h.scidLength, new int[] {Versions.V2});
    now = 1_000_000;
    client.onDatagram(forged.flip(), now, 0);
    assertThat(client.version()).as("the client cannot tell the forgery before the handshake")
        .isEqualTo(Versions.V2);

    talk();

    assertThat(clientSide.handshakeDone).isFalse();
    assertThat(serverSide.handshakeDone).isFalse();
    assertThat(server.connections()).allSatisfy(c -> assertThat(c.closeError())
        .isEqualTo(TransportError.VERSION_NEGOTIATION_ERROR));
    assertThat(serverSide.closes).singleElement().asString().contains("version downgrade");
    assertThat(client.closeError()).isEqualTo(TransportError.VERSION_NEGOTIATION_ERROR);
    assertThat(clientSide.closes).singleElement().asString().contains("by peer");
    assertThat(client.stats().toString()).isNotEmpty();
  }

  @Test
  void theAttemptedVersionTravelsInsideTheEncryptedClientHello() {
    byte[] first = clientDatagram();
    // version_information is transport parameter 0x11 with the chosen and attempted versions:
    // neither of its 4-byte values appears in the clear anywhere in the datagram past the
    // header (the long header itself carries the version the packet is of).
    ByteBuffer initial = ByteBuffer.wrap(first);
    PacketHeader h = new PacketHeader();
    assertThat(h.parse(initial, 0, 8)).isTrue();
    String afterHeader = new String(first, h.pnOffset, first.length - h.pnOffset,
        StandardCharsets.ISO_8859_1);
    String v3 = new String(ByteBuffer.allocate(4).putInt(V3).array(), StandardCharsets.ISO_8859_1);
    assertThat(afterHeader).doesNotContain(v3 + v3);
  }
}
