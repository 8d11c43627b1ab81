package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.packet.ConnectionId;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Stateless reset (RFC 9000 §10.3) pieces: tokens derived from the server's static key, the reset
 * packet's shape, its recognition, and the transport parameter that carries the token.
 */
class StatelessResetTest {
  private static final byte[] KEY = new byte[32];
  private static final byte[] OTHER_KEY = new byte[32];

  static {
    new Random(1).nextBytes(KEY);
    new Random(2).nextBytes(OTHER_KEY);
  }

  private static ConnectionId cid(long seed) {
    byte[] b = new byte[8];
    new Random(seed).nextBytes(b);
    return ConnectionId.of(b);
  }

  @Test
  void aTokenDependsOnTheStaticKeyAndTheConnectionIdAndSurvivesARestart() {
    StatelessReset before = StatelessReset.forServer(CryptoProviders.auto(), KEY);
    StatelessReset after = StatelessReset.forServer(CryptoProviders.auto(), KEY);
    StatelessReset otherServer = StatelessReset.forServer(CryptoProviders.auto(), OTHER_KEY);
    byte[] token = before.token(cid(7));
    assertThat(token).hasSize(StatelessReset.TOKEN_BYTES);
    assertThat(after.token(cid(7))).as("the same key after a restart").isEqualTo(token);
    assertThat(before.token(cid(8))).as("another connection").isNotEqualTo(token);
    assertThat(otherServer.token(cid(7))).as("another server key").isNotEqualTo(token);
  }

  @Test
  void aResetIsShorterThanItsTriggerEndsInTheTokenAndIsRecognisedOnlyWithIt() {
    StatelessReset resets = StatelessReset.forServer(CryptoProviders.auto(), KEY);
    ConnectionId id = cid(9);
    byte[] token = resets.token(id);
    ByteBuffer trigger = ByteBuffer.allocate(100);
    trigger.put((byte) 0x41);
    id.write(trigger);
    for (int triggerBytes : new int[] {100, 43, 30, 22}) {
      ByteBuffer reply = ByteBuffer.allocate(64);
      int n = resets.write(reply, triggerBytes, trigger, 1, 8, new Random(3));
      assertThat(n).as("reset for a %d-byte packet", triggerBytes)
          .isEqualTo(Math.min(triggerBytes - 1, StatelessReset.SENT_BYTES))
          .isGreaterThanOrEqualTo(StatelessReset.MIN_BYTES);
      assertThat(reply.get(0) & 0xc0).as("short header form, fixed bit").isEqualTo(0x40);
      assertThat(StatelessReset.matches(reply, 0, n, token)).isTrue();
      byte[] wrong = token.clone();
      wrong[15] ^= 1;
      assertThat(StatelessReset.matches(reply, 0, n, wrong)).isFalse();
      assertThat(StatelessReset.matches(reply, 0, n, null)).isFalse();
    }
    ByteBuffer reply = ByteBuffer.allocate(64);
    assertThat(resets.write(reply, 21, trigger, 1, 8, new Random(3)))
        .as("a packet too short for a smaller reset is not answered").isZero();
    assertThat(reply.position()).isZero();
  }

  @Test
  void theTokenTravelsInTheServerHelloOnlyAndMustBeSixteenBytes() {
    TransportParameters server = new TransportParameters();
    server.messageType = TransportParameters.SERVER_HELLO;
    server.initialSourceConnectionId = cid(1);
    server.statelessResetToken = new byte[16];
    server.statelessResetToken[3] = 42;
    ByteBuffer b = ByteBuffer.allocate(TransportParameters.MAX_MESSAGE_BYTES);
    server.encode(b);
    b.flip();
    TransportParameters read = new TransportParameters();
    assertThat(read.decode(b)).isNull();
    assertThat(read.statelessResetToken).isEqualTo(server.statelessResetToken);

    TransportParameters client = new TransportParameters();
    client.messageType = TransportParameters.CLIENT_HELLO;
    client.initialSourceConnectionId = cid(2);
    client.statelessResetToken = new byte[16];
    b.clear();
    client.encode(b);
    b.flip();
    assertThat(new TransportParameters().decode(b)).isEqualTo("stateless_reset_token from a client");

    server.statelessResetToken = new byte[15];
    b.clear();
    server.encode(b);
    b.flip();
    assertThat(new TransportParameters().decode(b)).isEqualTo("bad stateless_reset_token");
  }

  @Test
  void aLongEnoughTriggerDrawsAResetThatProvesTheServersUptimeToTheHolderOfTheProofKey() {
    StatelessReset resets = StatelessReset.forServer(CryptoProviders.auto(), KEY);
    ConnectionId id = cid(11);
    byte[] proofKey = resets.proofKey(id);
    assertThat(proofKey).hasSize(StatelessReset.PROOF_KEY_BYTES)
        .isEqualTo(StatelessReset.forServer(CryptoProviders.auto(), KEY).proofKey(id))
        .isNotEqualTo(resets.proofKey(cid(12)))
        .isNotEqualTo(resets.token(id));
    int proven = StatelessReset.provenBytes(8);
    int headerEnd = 1 + 8 + 4;
    ByteBuffer trigger = ByteBuffer.allocate(200);
    trigger.put((byte) 0x41);
    id.write(trigger);

    ByteBuffer reply = ByteBuffer.allocate(100);
    int n = resets.write(reply, 120, trigger, 1, 8, new Random(4), 1234);
    assertThat(n).isEqualTo(proven).isLessThan(120);
    assertThat(StatelessReset.matches(reply, 0, n, resets.token(id))).isTrue();
    assertThat(StatelessReset.provenUptime(reply, headerEnd, n, proofKey, CryptoProviders.auto().newHmacSha256()))
        .isEqualTo(1234);
    assertThat(StatelessReset.provenUptime(reply, headerEnd, n, resets.proofKey(cid(12)),
        CryptoProviders.auto().newHmacSha256())).as("another connection's key").isEqualTo(-1);
    assertThat(StatelessReset.provenUptime(reply, headerEnd, n, null, CryptoProviders.auto().newHmacSha256()))
        .as("no key from the ServerHello").isEqualTo(-1);
    for (int at = headerEnd; at < n - StatelessReset.TOKEN_BYTES; at++) {
      ByteBuffer altered = ByteBuffer.allocate(n);
      altered.put(reply.array(), 0, n);
      altered.put(at, (byte) (altered.get(at) ^ 0x10));
      assertThat(StatelessReset.provenUptime(altered, headerEnd, n, proofKey, CryptoProviders.auto().newHmacSha256()))
          .as("byte %d altered", at).isEqualTo(-1);
    }

    ByteBuffer shortReply = ByteBuffer.allocate(100);
    int m = resets.write(shortReply, proven, trigger, 1, 8, new Random(4), 1234);
    assertThat(m).as("a trigger too short for a proven reset draws a plain one, shorter than it")
        .isEqualTo(Math.min(proven - 1, StatelessReset.SENT_BYTES));
    assertThat(StatelessReset.matches(shortReply, 0, m, resets.token(id))).isTrue();
    assertThat(StatelessReset.provenUptime(shortReply, headerEnd, m, proofKey, CryptoProviders.auto().newHmacSha256()))
        .isEqualTo(-1);
    ByteBuffer unbound = ByteBuffer.allocate(100);
    int u = resets.write(unbound, 120, trigger, 1, 8, new Random(4), -1);
    assertThat(u).as("no uptime known: a plain reset").isEqualTo(StatelessReset.SENT_BYTES);
  }

  @Test
  void theProofKeyTravelsInTheServerHelloOnlyAndMustBeSixteenBytes() {
    TransportParameters server = new TransportParameters();
    server.messageType = TransportParameters.SERVER_HELLO;
    server.initialSourceConnectionId = cid(1);
    server.resetProofKey = new byte[16];
    server.resetProofKey[5] = 7;
    ByteBuffer b = ByteBuffer.allocate(TransportParameters.MAX_MESSAGE_BYTES);
    server.encode(b);
    b.flip();
    TransportParameters read = new TransportParameters();
    assertThat(read.decode(b)).isNull();
    assertThat(read.resetProofKey).isEqualTo(server.resetProofKey);

    TransportParameters client = new TransportParameters();
    client.messageType = TransportParameters.CLIENT_HELLO;
    client.initialSourceConnectionId = cid(2);
    client.resetProofKey = new byte[16];
    b.clear();
    client.encode(b);
    b.flip();
    assertThat(new TransportParameters().decode(b)).isEqualTo("tern_reset_proof_key from a client");

    server.resetProofKey = new byte[17];
    b.clear();
    server.encode(b);
    b.flip();
    assertThat(new TransportParameters().decode(b)).isEqualTo("bad tern_reset_proof_key");
  }
}
