package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RFC 9000 §9.3, §8.2.1: after the client's address changes mid-transfer, the server sends to
 * the new address at most three times the bytes of the authenticated datagrams it received from
 * it, until a PATH_RESPONSE validates it; then the limit is gone. A copy of the client's datagram
 * from an attacker's address moves the server there, but draws at most three times its bytes,
 * and the client's next datagram brings the server back. A validation that times out returns to
 * the last validated path (§9.3.2). A real client and server, datagrams passed by hand: each
 * round, what the client sends reaches the server, and what the server sends to the client's
 * current address reaches the client (one round trip per round).
 */
@Timeout(60)
class PathBudgetTest {
  private static final long MS = 1_000_000L;
  private static final int RESPONSE_BYTES = 600_000;

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private final ByteBuffer reply = ByteBuffer.allocate(2048);
  private long now = 1_000 * MS;
  private Connection client;
  private Connection server;
  private ServerDemux demux;
  private Stream serverStream;
  private Stream clientStream;
  private final ByteBuffer response = ByteBuffer.allocate(RESPONSE_BYTES);
  private long responseRead;
  /** The client's address now (the driver's path id). */
  private long clientPath;
  /** Bytes of datagrams from each path handed to the server, and bytes it wrote to each. */
  private final Map<Long, long[]> bytes = new HashMap<>();
  /** The client's datagrams of the last round, kept back for the test to route. */
  private final List<byte[]> fromClient = new ArrayList<>();

  private long[] path(long id) {
    return bytes.computeIfAbsent(id, k -> new long[2]);
  }

  /** A client and a server whose handshake is done, with a call whose response is under way. */
  private void transferUnderWay() {
    client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {
          @Override
          public void onReadable(Stream stream) {
            ByteBuffer sink = ByteBuffer.allocate(65536);
            int n;
            while ((n = client.read(stream, sink.clear())) > 0) {
              responseRead += n;
            }
          }
        });
    demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {
          @Override
          public void onStreamOpened(Stream stream) {
            serverStream = stream;
          }
        }, 4);
    for (int i = 0; i < 10 && (server == null || server.state() != ConnectionState.ESTABLISHED
        || client.state() != ConnectionState.ESTABLISHED); i++) {
      round();
    }
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    clientStream = client.openStream();
    client.write(clientStream, ByteBuffer.wrap(new byte[100]));
    client.finish(clientStream);
    round();
    assertThat(serverStream).as("the call reached the server").isNotNull();
    for (int i = 0; i < 8; i++) {
      round();
    }
    assertThat(responseRead).as("mid-transfer").isPositive().isLessThan(RESPONSE_BYTES / 2);
  }

  /** One round: the client's datagrams to the server, the server's back to the client. */
  private void round() {
    clientSends();
    deliverToServer(clientPath);
    serverSends(true);
  }

  private void clientSends() {
    fromClient.clear();
    if (client.nextTimeoutNs() <= now) {
      client.onTimeout(now);
    }
    while (true) {
      wire.clear();
      int n = client.pollDatagram(wire, now);
      if (n == 0) {
        return;
      }
      byte[] d = new byte[n];
      wire.flip().get(d);
      fromClient.add(d);
    }
  }

  /** Runs the server's side until the client has datagrams to send (its ACKs, say). */
  private void clientSendsSomething() {
    clientSends();
    for (int i = 0; i < 10 && fromClient.isEmpty(); i++) {
      serverSends(true);
      clientSends();
    }
    assertThat(fromClient).as("the client has something to send").isNotEmpty();
  }

  /** Hands the client's datagrams of this round to the server as if they came from {@code from}. */
  private void deliverToServer(long from) {
    for (byte[] d : fromClient) {
      deliver(d, from);
    }
  }

  private void deliver(byte[] d, long from) {
    path(from)[0] += d.length;
    reply.clear();
    Connection c = demux.onDatagram(ByteBuffer.wrap(d.clone()), now, from, reply);
    if (server == null) {
      server = c;
    }
  }

  /**
   * The server's datagrams: each counted against the path it is for and, if {@code delivered}
   * and that is the client's address, handed to the client. Checks the budget of a path the
   * server moved to on every datagram, before the path's validation.
   */
  private void serverSends(boolean delivered) {
    now += 20 * MS;
    if (server == null) {
      return;
    }
    if (server.nextTimeoutNs() <= now) {
      server.onTimeout(now);
    }
    feedResponse();
    while (true) {
      long to = server.currentPathId();
      boolean validated = server.addressValidated();
      wire.clear();
      int n = server.pollDatagram(wire, now);
      if (n == 0) {
        break;
      }
      long[] p = path(to);
      p[1] += n;
      if (!validated) {
        assertThat(p[1]).as("bytes to unvalidated path %d, having received %d from it", to, p[0])
            .isLessThanOrEqualTo(3 * p[0]);
      }
      if (delivered && to == clientPath) {
        wire.flip();
        client.onDatagram(wire, now, 0);
      }
      feedResponse();
    }
    now += 20 * MS;
  }

  private void feedResponse() {
    if (serverStream != null && response.hasRemaining()) {
      server.write(serverStream, response);
      if (!response.hasRemaining()) {
        server.finish(serverStream);
      }
    }
  }

  @Test
  void beforeThePathResponseTheServerSendsTheNewAddressAtMostThreeTimesWhatCameFromIt() {
    transferUnderWay();
    long validatedBefore = server.stats().pathsValidated;
    clientPath = 1; // the NAT gives the client a new port: the server's packets to 0 are lost
    int rounds = 0;
    while (server.stats().pathsValidated == validatedBefore && rounds++ < 20) {
      round(); // checks every datagram to path 1 against 3x what came from it
    }
    assertThat(server.currentPathId()).isEqualTo(1);
    assertThat(server.stats().pathsValidated).as("validated by PATH_RESPONSE")
        .isEqualTo(validatedBefore + 1);
    assertThat(path(1)[1]).as("the server did send to the new path before validating it")
        .isPositive();
    // The budget did bind: the server had a window of data to send and sent less.
    assertThat(server.stats().datagramsHeldByPathBudget + server.stats().bytesTrimmedByPathBudget)
        .isPositive();
  }

  @Test
  void validationLiftsTheLimit() {
    transferUnderWay();
    clientPath = 1;
    for (int i = 0; i < 20 && !server.addressValidated(); i++) {
      round();
    }
    assertThat(server.addressValidated()).isTrue();
    long[] p = path(1);
    long receivedAtValidation = p[0];
    for (int i = 0; i < 1000 && responseRead < RESPONSE_BYTES; i++) {
      round();
    }
    assertThat(responseRead).as("the whole response arrived").isEqualTo(RESPONSE_BYTES);
    // Past the 3x limit once validated: the response is far larger than the ACKs that came.
    assertThat(p[1]).isGreaterThan(3 * p[0]).isGreaterThan(3 * receivedAtValidation);
    long held = server.stats().datagramsHeldByPathBudget;
    round();
    assertThat(server.stats().datagramsHeldByPathBudget).isEqualTo(held);
  }

  @Test
  void aCopyOfTheClientsDatagramFromAnAttackerDrawsAtMostThreeTimesItsBytes() {
    transferUnderWay();
    long attacker = 666;
    // An attacker on the path captures the client's datagrams of a round and delivers copies
    // from its own address first (they authenticate: they are the client's), then replays them
    // again and again: the originals from the client's address arrive as duplicates.
    clientSendsSomething();
    List<byte[]> captured = new ArrayList<>(fromClient);
    for (int replay = 0; replay < 20; replay++) {
      for (byte[] d : captured) {
        deliver(d, attacker);
      }
      if (replay == 0) {
        assertThat(server.currentPathId()).as("the copy moved the server").isEqualTo(attacker);
        deliverToServer(clientPath); // the originals, late: duplicates
      }
      serverSends(false); // what goes to the attacker's address is checked, and not delivered
    }
    long[] a = path(attacker);
    assertThat(a[1]).as("bytes reflected to the attacker").isPositive()
        .isLessThanOrEqualTo(3 * a[0]);
    assertThat(server.stats().datagramsHeldByPathBudget).isPositive();
    // The client's next datagram, from its real (validated) address, brings the server back
    // at once, without a new validation (RFC 9000 §9.3.3), and the transfer goes on.
    long validated = server.stats().pathsValidated;
    for (int i = 0; i < 1000 && responseRead < RESPONSE_BYTES; i++) {
      round();
    }
    assertThat(server.currentPathId()).isEqualTo(clientPath);
    assertThat(server.addressValidated()).isTrue();
    assertThat(server.stats().pathsValidated).isEqualTo(validated);
    assertThat(responseRead).isEqualTo(RESPONSE_BYTES);
  }

  @Test
  void aValidationThatTimesOutReturnsToTheLastValidatedPath() {
    transferUnderWay();
    clientPath = 1;
    clientSendsSomething();
    deliverToServer(1);
    long movedAt = now;
    assertThat(server.currentPathId()).isEqualTo(1);
    assertThat(server.addressValidated()).isFalse();
    // Nothing more arrives from path 1 (the client went silent, say): the validation is
    // abandoned after three probe timeouts of a new path (RFC 9000 §8.2.4), no sooner.
    for (int i = 0; i < 100 && server.currentPathId() == 1; i++) {
      now = Math.max(now, server.nextTimeoutNs());
      server.onTimeout(now);
      serverSends(false);
    }
    assertThat(server.stats().pathValidationsFailed).isEqualTo(1);
    assertThat(now - movedAt).isBetween(3 * Connection.INITIAL_PTO_NS, 10_000 * MS);
    assertThat(server.currentPathId()).as("back on the last validated path").isEqualTo(0);
    assertThat(server.addressValidated()).isTrue();
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.nextTimeoutNs()).as("no timer left in the past").isGreaterThan(now);
  }
}
