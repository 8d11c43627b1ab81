package dev.tern.transport.udp.handshake;

import static dev.tern.transport.udp.crypto.TestProviders.hex;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.Hkdf;
import dev.tern.transport.udp.crypto.InitialSecrets;
import dev.tern.transport.udp.crypto.KeyLabels;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tern's own vectors (docs/udp-crypto.md §9): the Initial secrets of RFC 9001's connection ID
 * under Tern's salt and labels, and a whole handshake with fixed keys. Produced by this code and
 * kept identical across both providers, so an independent implementation can check itself.
 */
class TernVectorsTest {
  static final byte[] NONE = new byte[0];

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void ternInitialSecrets(CryptoProvider p) {
    Hkdf hkdf = new Hkdf(p);
    InitialSecrets s = InitialSecrets.tern(hkdf, hex("8394c8f03e515708"));
    String vector = "client_initial " + hex(s.client) + "\n"
        + "client key " + hex(hkdf.expandLabel(s.client, KeyLabels.TERN_V1.key(), NONE, 16))
        + "\nclient iv " + hex(hkdf.expandLabel(s.client, KeyLabels.TERN_V1.iv(), NONE, 12))
        + "\nclient hp " + hex(hkdf.expandLabel(s.client, KeyLabels.TERN_V1.hp(), NONE, 16))
        + "\nserver_initial " + hex(s.server) + "\n";
    assertThat(vector).isEqualTo(Golden.INITIAL);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void ternHandshakeWithFixedKeys(CryptoProvider p) throws Exception {
    AeadAlgorithm cipher = AeadAlgorithm.CHACHA20_POLY1305;
    byte[] serverStatic = hex("4a3acbfdb163dec651dfa3194dece676d437029c62a408b4c5ea9114246e4893");
    byte[] serverEphemeral =
        hex("bbdb4cdbd309f1a1f2e1456967fe288cadd6f712d65dc7b7793d5e63da6b375b");
    byte[] clientStatic = hex("e61ef9919cde45dd5f82166404bd08e38bceb5dfdfded0a34c8df7ed542214d1");
    byte[] clientEphemeral =
        hex("893e28b9dc6ca8d611ab664754b8ceb7bac5117349a4439a6b0569da977c464a");
    HandshakeContext ctx = new HandshakeContext(0x544e0001, hex("8394c8f03e515708"),
        hex("0102030405060708"));
    PinnedServerKey pin = new PinnedServerKey(7, p.x25519().publicKey(serverStatic));
    ClientHandshake c = new ClientHandshake(new ClientHandshakeConfig(p, cipher, List.of(pin),
        clientStatic, new SecureRandom()), ctx, pin, null, clientEphemeral);
    ServerHandshake s = new ServerHandshake(new ServerHandshakeConfig(p,
        List.of(new ServerStaticKey(7, serverStatic)), EnumSet.of(cipher), null, null,
        new SecureRandom()), ctx, serverEphemeral);
    ByteBuffer ch = ByteBuffer.allocate(1100);
    c.writeClientHello(hex("0f080102030405060708"), ch); // initial_source_connection_id only
    ch.flip();
    String clientHello = hex(Peers.bytes(ch.duplicate().position(ch.limit())));
    s.readClientHello(ch);
    ByteBuffer sh = ByteBuffer.allocate(1100);
    s.writeServerHello(hex("0f08a1a2a3a4a5a6a7a8"), sh);
    sh.flip();
    String serverHello = hex(Peers.bytes(sh.duplicate().position(sh.limit())));
    c.readServerHello(sh);
    HandshakeSecrets secrets = c.secrets();
    String vector = "client_hello " + clientHello + "\nserver_hello " + serverHello
        + "\nhandshake_hash " + hex(secrets.handshakeHash())
        + "\nc_hs " + hex(secrets.clientHandshakeSecret())
        + "\ns_hs " + hex(secrets.serverHandshakeSecret())
        + "\nc_ap " + hex(secrets.client1RttSecret())
        + "\ns_ap " + hex(secrets.server1RttSecret()) + "\n";
    assertThat(s.secrets().client1RttSecret()).isEqualTo(secrets.client1RttSecret());
    assertThat(vector).isEqualTo(Golden.HANDSHAKE);
  }

  /** The vectors as docs/udp-crypto.md §9 prints them. */
  static final class Golden {
    static final String INITIAL =
      "client_initial 76268568e9ba944fc7787be94e3f41956634ff1f6fd298901d5157dad62ab47d\n"
        + "client key f9a6d698e60e5371ff4a6ade13f18ac3\n"
        + "client iv 25a1018e0db45d3a700f2701\n"
        + "client hp e8de9a130756eb0aabcc9a74398cef1e\n"
        + "server_initial 3a9d838bfac458d9b88730d7ffc8cff0a0b112ae8b3d58e76713aeccdbb98031\n";
    static final String HANDSHAKE =
      "client_hello "
        + "010107ca35def5ae56cec33dc2036731ab14896bc4c75dbb07a61f879f8e3afa"
        + "4c7944718da798efbcd91528520204f904b9bd6c7413dccdc214d951e15253e3"
        + "9987f1b873abddf1e88ed09351280eafffe10b81f4955c214ab37a1a92057464"
        + "685cadda1878c0cb5cd864e084\n"
        + "server_hello "
        + "0395ebc60d2b1fa672c1f46a8aa265ef51bfe38e7ccb39ec5be34069f1448088"
        + "43111c34dbec09c31201307a7d9ddbf6c43774d09026d15226f71a\n"
        + "handshake_hash c09177a28a85bbdab36bd90124e49d84aeb41e8e7f7e09d3c262a46514e332bc\n"
        + "c_hs e0997a09b9297677d05e82ddf896e15c6a31faf0500eda60196297ca1d8a853c\n"
        + "s_hs bada4651e001845bf1c6b03ef8e5ae07b137f8967e801b8240e9940538d8fbba\n"
        + "c_ap be6a16c2720a1159136980e17ec737210cdb98773221d875f9efcc04777ee705\n"
        + "s_ap 96f14ccde4f71c06659fd1915fbe92641a26cfb1faf98714c07558633f21286b\n";
  }
}
