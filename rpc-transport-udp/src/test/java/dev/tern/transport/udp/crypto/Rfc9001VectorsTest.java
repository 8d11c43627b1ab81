package dev.tern.transport.udp.crypto;

import static dev.tern.transport.udp.crypto.TestProviders.hex;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RFC 9001 Appendix A with QUIC's labels and salt: Initial key derivation (A.1), the client and
 * server Initial packets (A.2, A.3: AES-128-GCM, AES header protection) and the ChaCha20-Poly1305
 * short-header packet (A.5), sealed and opened through {@link PacketKeys}.
 */
class Rfc9001VectorsTest {
  private static final byte[] DCID = hex("8394c8f03e515708");
  private static final byte[] NONE = new byte[0];

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void derivesTheInitialSecretsAndKeysOfAppendixA1(CryptoProvider provider) {
    Hkdf hkdf = new Hkdf(provider);
    assertThat(hex(hkdf.extract(InitialSecrets.QUIC_V1_SALT, DCID)))
        .isEqualTo("7db5df06e7a69e432496adedb00851923595221596ae2ae9fb8115c1e9ed0a44");
    InitialSecrets s = InitialSecrets.derive(hkdf, InitialSecrets.QUIC_V1_SALT, DCID,
        "client in", "server in");
    assertThat(hex(s.client))
        .isEqualTo("c00cf151ca5be075ed0ebfb5c80323c42d6b7db67881289af4008f1f6c357aea");
    assertThat(hex(hkdf.expandLabel(s.client, "quic key", NONE, 16)))
        .isEqualTo("1f369613dd76d5467730efcbe3b1a22d");
    assertThat(hex(hkdf.expandLabel(s.client, "quic iv", NONE, 12)))
        .isEqualTo("fa044b2f42a3fd3b46fb255c");
    assertThat(hex(hkdf.expandLabel(s.client, "quic hp", NONE, 16)))
        .isEqualTo("9f50449e04a0e810283a1e9933adedd2");
    assertThat(hex(s.server))
        .isEqualTo("3c199828fd139efd216c155ad844cc81fb82fa8d7446fa7d78be803acdda951b");
    assertThat(hex(hkdf.expandLabel(s.server, "quic key", NONE, 16)))
        .isEqualTo("cf3a5331653c364c88f0f379b6067e37");
    assertThat(hex(hkdf.expandLabel(s.server, "quic iv", NONE, 12)))
        .isEqualTo("0ac1493ca1905853b0bba03e");
    assertThat(hex(hkdf.expandLabel(s.server, "quic hp", NONE, 16)))
        .isEqualTo("c206b8d9b9f0f37644430b490eeaa314");
  }

  private static InitialSecrets quicInitial(CryptoProvider provider) {
    return InitialSecrets.derive(new Hkdf(provider), InitialSecrets.QUIC_V1_SALT, DCID,
        "client in", "server in");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void sealsAndProtectsTheClientInitialOfAppendixA2(CryptoProvider provider) {
    InitialSecrets s = quicInitial(provider);
    byte[] header = hex("c300000001088394c8f03e5157080000449e00000002");
    byte[] payload = Arrays.copyOf(hex(Rfc9001Samples.CLIENT_CRYPTO_FRAME), 1162); // + PADDING
    byte[] expected = hex(Rfc9001Samples.CLIENT_PROTECTED);

    ByteBuffer out = ByteBuffer.allocate(1500);
    out.put(header).put(payload);
    PacketKeys client = EpochPacketKeys.create(provider, AeadAlgorithm.AES_128_GCM,
        KeyLabels.QUIC_V1, s.server, s.client);
    assertThat(client.seal(out, 0, header.length, 2)).isTrue();
    assertThat(hex(Arrays.copyOfRange(out.array(), 22, 38)))
        .as("the header-protection sample").isEqualTo("d1b1c98dd7689fb8ec11d242b123dc9b");
    client.applyHeaderProtection(out, 0, 18);
    assertThat(out.position()).isEqualTo(1200);
    assertThat(hex(Arrays.copyOf(out.array(), 1200))).isEqualTo(hex(expected));

    // The server takes it apart again: header protection first, then the payload.
    PacketKeys server = EpochPacketKeys.create(provider, AeadAlgorithm.AES_128_GCM,
        KeyLabels.QUIC_V1, s.client, s.server);
    ByteBuffer in = ByteBuffer.wrap(expected.clone());
    assertThat(server.removeHeaderProtection(in, 0, 18, 1200)).isEqualTo(4);
    assertThat(hex(Arrays.copyOf(in.array(), 22))).isEqualTo(hex(header));
    assertThat(server.open(in, 0, 22, 1200, 2)).isEqualTo(22 + 1162);
    assertThat(Arrays.copyOfRange(in.array(), 22, 22 + 1162)).isEqualTo(payload);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void theMaskOfAppendixA2(CryptoProvider provider) {
    HeaderProtector hp = new HeaderProtector(provider, AeadAlgorithm.AES_128_GCM,
        hex("9f50449e04a0e810283a1e9933adedd2"));
    byte[] buf = new byte[24];
    System.arraycopy(hex("d1b1c98dd7689fb8ec11d242b123dc9b"), 0, buf, 8, 16);
    assertThat(hex(hp.maskFor(buf, 4))).isEqualTo("437b9aec36");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void sealsAndProtectsTheServerInitialOfAppendixA3(CryptoProvider provider) {
    InitialSecrets s = quicInitial(provider);
    byte[] header = hex("c1000000010008f067a5502a4262b50040750001");
    byte[] payload = hex(Rfc9001Samples.SERVER_PAYLOAD);
    byte[] expected = hex(Rfc9001Samples.SERVER_PROTECTED);
    ByteBuffer out = ByteBuffer.allocate(200);
    out.put(header).put(payload);
    PacketKeys server = EpochPacketKeys.create(provider, AeadAlgorithm.AES_128_GCM,
        KeyLabels.QUIC_V1, s.client, s.server);
    assertThat(server.seal(out, 0, header.length, 1)).isTrue();
    server.applyHeaderProtection(out, 0, 18);
    assertThat(hex(Arrays.copyOf(out.array(), out.position()))).isEqualTo(hex(expected));

    PacketKeys client = EpochPacketKeys.create(provider, AeadAlgorithm.AES_128_GCM,
        KeyLabels.QUIC_V1, s.server, s.client);
    ByteBuffer in = ByteBuffer.wrap(expected.clone());
    assertThat(client.removeHeaderProtection(in, 0, 18, expected.length)).isEqualTo(2);
    assertThat(client.open(in, 0, 20, expected.length, 1)).isEqualTo(20 + payload.length);
    assertThat(Arrays.copyOfRange(in.array(), 20, 20 + payload.length)).isEqualTo(payload);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void sealsTheChaCha20ShortHeaderPacketOfAppendixA5(CryptoProvider provider) {
    byte[] secret = hex("9ac312a7f877468ebe69422748ad00a15443f18203a07d6060f688f30f21632b");
    Hkdf hkdf = new Hkdf(provider);
    assertThat(hex(hkdf.expandLabel(secret, "quic key", NONE, 32)))
        .isEqualTo("c6d98ff3441c3fe1b2182094f69caa2ed4b716b65488960a7a984979fb23e1c8");
    assertThat(hex(hkdf.expandLabel(secret, "quic iv", NONE, 12)))
        .isEqualTo("e0459b3474bdd0e44a41c144");
    assertThat(hex(hkdf.expandLabel(secret, "quic hp", NONE, 32)))
        .isEqualTo("25a282b9e82f06f21f488917a4fc8f1b73573685608597d0efcb076b0ab7a7a4");

    OneRttPacketKeys keys = new OneRttPacketKeys(provider, AeadAlgorithm.CHACHA20_POLY1305,
        KeyLabels.QUIC_V1, secret, secret);
    assertThat(hex(keys.nextSecret(secret))).as("ku")
        .isEqualTo("1223504755036d556342ee9361d253421a826c9ecdf3c7148684b36b714881f9");

    long pn = 654360564L;
    ByteBuffer out = ByteBuffer.allocate(64);
    out.put(hex("4200bff4")).put((byte) 0x01);
    assertThat(keys.seal(out, 0, 4, pn)).isTrue();
    assertThat(hex(Arrays.copyOfRange(out.array(), 4, out.position())))
        .isEqualTo("655e5cd55c41f69080575d7999c25a5bfb");
    HeaderProtector hp = new HeaderProtector(provider, AeadAlgorithm.CHACHA20_POLY1305,
        hkdf.expandLabel(secret, "quic hp", NONE, 32));
    assertThat(hex(hp.maskFor(out.array(), 1))).isEqualTo("aefefe7d03");
    keys.applyHeaderProtection(out, 0, 1);
    assertThat(hex(Arrays.copyOf(out.array(), out.position())))
        .isEqualTo("4cfe4189655e5cd55c41f69080575d7999c25a5bfb");

    // The receiver (same secret for both directions here) undoes it.
    ByteBuffer in = ByteBuffer.wrap(hex("4cfe4189655e5cd55c41f69080575d7999c25a5bfb"));
    assertThat(keys.removeHeaderProtection(in, 0, 1, 21)).isEqualTo(3);
    assertThat(hex(Arrays.copyOf(in.array(), 4))).isEqualTo("4200bff4");
    assertThat(keys.open(in, 0, 4, 21, pn)).isEqualTo(5);
    assertThat(in.get(4)).isEqualTo((byte) 0x01);
  }
}
