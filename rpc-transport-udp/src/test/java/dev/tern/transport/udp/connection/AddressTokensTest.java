package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.frame.ProtocolVectors;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import dev.tern.transport.udp.packet.ConnectionId;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Address-validation tokens (RFC 9000 §8.1.3, §8.1.4; docs/protocol.md §9.8) and the Retry
 * packet's integrity tag (RFC 9001 §5.8 with Tern's key; the golden vector of §9.7).
 */
class AddressTokensTest {
  private static final byte[] ADDRESS = {10, 0, 0, 7, 0x1f, (byte) 0x90};
  private static final byte[] OTHER_ADDRESS = {10, 0, 0, 7, 0x1f, (byte) 0x91};
  private static final ConnectionId ODCID = ConnectionId.of(HexFormat.of().parseHex(
      "8394c8f03e515708"));
  private static final ServerStaticKey OTHER_KEY = new ServerStaticKey(2, HexFormat.of()
      .parseHex("c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec07f"));

  private static AddressTokens tokens(ServerStaticKey... keys) {
    return new AddressTokens(CryptoProviders.auto(), List.of(keys), new Random(5));
  }

  private static AddressTokens.Contents open(AddressTokens t, byte[] token) {
    return t.open(ByteBuffer.wrap(token), 0, token.length);
  }

  @Test
  void aRetryTokenSaysWhatItWasIssuedForAndAnotherInstanceWithTheKeyReadsIt() {
    byte[] token = tokens(TestKeys.serverKey()).seal(AddressTokens.KIND_RETRY, 1_000_000,
        ADDRESS, ODCID);
    AddressTokens.Contents c = open(tokens(TestKeys.serverKey()), token);
    assertThat(c).isNotNull();
    assertThat(c.kind).isEqualTo(AddressTokens.KIND_RETRY);
    assertThat(c.issuedMs).isEqualTo(1_000_000);
    assertThat(c.address).isEqualTo(ADDRESS);
    assertThat(c.originalDcid).isEqualTo(ODCID);
    assertThat(token.length).isLessThanOrEqualTo(AddressTokens.MAX_TOKEN_BYTES);
    assertThat(new String(token, java.nio.charset.StandardCharsets.ISO_8859_1))
        .as("the address is not readable in the token").doesNotContain(new String(ADDRESS,
            java.nio.charset.StandardCharsets.ISO_8859_1));
  }

  @Test
  void everyAlteredByteMakesTheTokenFailToOpen() {
    AddressTokens t = tokens(TestKeys.serverKey());
    byte[] token = t.seal(AddressTokens.KIND_NEW_TOKEN, 5, ADDRESS, null);
    assertThat(open(t, token)).isNotNull();
    for (int i = 0; i < token.length; i++) {
      byte[] altered = token.clone();
      altered[i] ^= 0x01;
      assertThat(open(t, altered)).as("byte %d flipped", i).isNull();
    }
    assertThat(open(t, java.util.Arrays.copyOf(token, token.length - 1))).isNull();
    assertThat(open(t, new byte[token.length])).isNull();
  }

  @Test
  void aTokenIsValidOnlyForItsAddressAndWithinItsLifetime() {
    AddressTokens t = tokens(TestKeys.serverKey());
    AddressTokens.Contents c = open(t, t.seal(AddressTokens.KIND_RETRY, 10_000, ADDRESS,
        ODCID));
    assertThat(AddressTokens.valid(c, ADDRESS, 10_000, 5_000)).isTrue();
    assertThat(AddressTokens.valid(c, ADDRESS, 15_000, 5_000)).as("at the end").isTrue();
    assertThat(AddressTokens.valid(c, ADDRESS, 15_001, 5_000)).as("expired").isFalse();
    assertThat(AddressTokens.valid(c, OTHER_ADDRESS, 10_000, 5_000)).as("another port")
        .isFalse();
    assertThat(AddressTokens.valid(c, ADDRESS, 10_000 - AddressTokens.CLOCK_SKEW_MS - 1,
        5_000)).as("issued in the future, beyond the skew").isFalse();
  }

  @Test
  void aRotationKeepsThePreviousKeysTokensAndAnotherServerReadsNone() {
    byte[] old = tokens(TestKeys.serverKey()).seal(AddressTokens.KIND_NEW_TOKEN, 1, ADDRESS,
        null);
    AddressTokens rotated = tokens(OTHER_KEY, TestKeys.serverKey());
    assertThat(open(rotated, old)).as("the previous key's token").isNotNull();
    byte[] fresh = rotated.seal(AddressTokens.KIND_NEW_TOKEN, 1, ADDRESS, null);
    assertThat(fresh[0]).as("sealed under the current key's id").isEqualTo((byte) 2);
    assertThat(open(tokens(OTHER_KEY), old)).as("the previous key dropped").isNull();
    assertThat(open(tokens(TestKeys.serverKey()), fresh)).as("before the rotation").isNull();
    // A server holding a different key under the same id reads nothing.
    assertThat(open(tokens(new ServerStaticKey(TestKeys.KEY_ID, OTHER_KEY.privateKey())), old))
        .isNull();
  }

  /** docs/protocol.md §9.7: the Retry of the golden vector, byte for byte, and its tag. */
  @Test
  void theRetryGoldenVector() {
    String[] f = ProtocolVectors.lines("v2-retry-keys").get(0).trim().split("\\s+");
    assertThat(HexFormat.of().formatHex(RetryPacket.key(CryptoProviders.auto())))
        .isEqualTo(f[0].substring("key=".length()));
    assertThat(HexFormat.of().formatHex(RetryPacket.nonce(CryptoProviders.auto())))
        .isEqualTo(f[1].substring("nonce=".length()));
    byte[] expected = ProtocolVectors.hex("v2-retry");
    for (String provider : new String[] {"jdk", "bc"}) {
      RetryPacket retry = new RetryPacket(CryptoProviders.byName(provider));
      ByteBuffer out = ByteBuffer.allocate(256);
      int n = retry.write(out, 0x544e0002, 0, ConnectionId.of(HexFormat.of().parseHex(
          "0102030405060708")), ConnectionId.of(HexFormat.of().parseHex("1112131415161718")),
          HexFormat.of().parseHex("746f6b656e"), ODCID);
      assertThat(n).isEqualTo(out.position());
      assertThat(HexFormat.of().formatHex(out.array(), 0, n)).as(provider)
          .isEqualTo(HexFormat.of().formatHex(expected));
      ByteBuffer in = ByteBuffer.wrap(expected);
      assertThat(retry.verify(ODCID, in, 0, expected.length)).isTrue();
      assertThat(retry.verify(ConnectionId.of(new byte[8]), in, 0, expected.length))
          .as("another original DCID").isFalse();
      byte[] altered = expected.clone();
      altered[altered.length - 20] ^= 1;
      assertThat(retry.verify(ODCID, ByteBuffer.wrap(altered), 0, altered.length)).isFalse();
    }
  }

  /** docs/protocol.md §9.8: the NEW_TOKEN frame's vector, both ways; an empty token is refused. */
  @Test
  void theNewTokenFrameVector() {
    byte[] expected = ProtocolVectors.hex("frame-new-token");
    ByteBuffer out = ByteBuffer.allocate(64);
    dev.tern.transport.udp.frame.NewTokenFrame.encode(out, "token".getBytes(
        java.nio.charset.StandardCharsets.US_ASCII));
    assertThat(java.util.Arrays.copyOf(out.array(), out.position())).isEqualTo(expected);
    byte[][] got = new byte[1][];
    dev.tern.transport.udp.frame.FrameReader reader =
        new dev.tern.transport.udp.frame.FrameReader();
    dev.tern.transport.udp.frame.FrameHandler handler = (dev.tern.transport.udp.frame.FrameHandler)
        java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {dev.tern.transport.udp.frame.FrameHandler.class}, (proxy, m, args) -> {
              if (m.getName().equals("onNewToken")) {
                got[0] = ((dev.tern.transport.udp.frame.NewTokenFrame) args[0]).token();
              }
              return m.getReturnType() == boolean.class ? false : null;
            });
    int r = reader.read(ByteBuffer.wrap(expected), handler);
    assertThat(r).isEqualTo(dev.tern.transport.udp.frame.FrameReader.OK);
    assertThat(new String(got[0], java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("token");
    assertThat(reader.read(ByteBuffer.wrap(new byte[] {0x07, 0x00}), handler))
        .as("an empty token").isEqualTo(0x07);
  }
}
