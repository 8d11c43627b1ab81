package dev.tern.transport.udp.handshake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Configuration mistakes get errors that name the parameter and the value. */
class HandshakeConfigTest {

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void clientConfigurationErrorsNameTheParameter(CryptoProvider p) {
    PinnedServerKey pin = new PinnedServerKey(1, new byte[32]);
    assertThatThrownBy(() -> new ClientHandshakeConfig(p, AeadAlgorithm.CHACHA20_POLY1305,
        List.of(), null, Peers.RANDOM)).hasMessageContaining("pinnedKeys");
    assertThatThrownBy(() -> new ClientHandshakeConfig(p, AeadAlgorithm.AES_128_GCM,
        List.of(pin), null, Peers.RANDOM)).hasMessageContaining("got AES_128_GCM");
    assertThatThrownBy(() -> new ClientHandshakeConfig(p, AeadAlgorithm.CHACHA20_POLY1305,
        List.of(pin), new byte[16], Peers.RANDOM))
        .hasMessage("clientStaticKey must be 32 bytes, got 16 bytes");
    assertThatThrownBy(() -> new PinnedServerKey(256, new byte[32]))
        .hasMessage("keyId must be 0..255, got 256");
    assertThatThrownBy(() -> new HandshakeContext(1, new byte[21], new byte[8]))
        .hasMessage("clientDcid must be 0..20 bytes, got 21 bytes");
    ClientHandshakeConfig config = new ClientHandshakeConfig(p,
        AeadAlgorithm.CHACHA20_POLY1305, List.of(pin), null, Peers.RANDOM);
    assertThatThrownBy(() -> new ClientHandshake(config, Peers.CONTEXT,
        new PinnedServerKey(2, new byte[32]), null))
        .hasMessageContaining("serverKey must be one of the pinned keys");
    assertThat(config.toString()).doesNotContain("[B@").contains("anonymous");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void serverConfigurationErrorsNameTheParameter(CryptoProvider p) {
    ServerStaticKey k = new ServerStaticKey(3, new byte[32]);
    assertThatThrownBy(() -> new ServerHandshakeConfig(p, List.of(k, new ServerStaticKey(3,
        new byte[32])), Set.of(AeadAlgorithm.CHACHA20_POLY1305), null, null, Peers.RANDOM))
        .hasMessage("staticKeys has key id 3 twice");
    assertThatThrownBy(() -> new ServerHandshakeConfig(p, List.of(k), Set.of(), null, null,
        Peers.RANDOM)).hasMessageContaining("ciphers");
    assertThat(k.toString()).isEqualTo("ServerStaticKey[keyId=3]");
    assertThatThrownBy(() -> new ResumptionTicket(new byte[0], new byte[32], new byte[32]))
        .hasMessage("ticketId must be 1..255 bytes, got 0 bytes");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void oversizedTransportParametersAreRefusedBeforeAnythingIsWritten(CryptoProvider p)
      throws Exception {
    Peers.Server server = new Peers.Server(p, AeadAlgorithm.CHACHA20_POLY1305,
        new ServerStaticKey(1, Peers.privateKey()));
    ClientHandshake c = new ClientHandshake(Peers.client(p, AeadAlgorithm.CHACHA20_POLY1305,
        null, server.pin(0)), Peers.CONTEXT, null);
    java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(4096);
    assertThatThrownBy(() -> c.writeClientHello(new byte[1100], out))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("transportParameters of 1100 bytes");
    assertThat(out.position()).isZero();
  }
}
