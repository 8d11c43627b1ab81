package dev.tern.transport.udp.crypto;

import static dev.tern.transport.udp.crypto.TestProviders.hex;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.security.Provider;
import java.security.Security;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The "bc" provider on a platform whose JCA has nothing: every JCA provider is removed for the
 * test (and put back after), as on an Android release that lacks X25519 and ChaCha20-Poly1305.
 */
@ResourceLock("java.security.Security")
class BcWithoutJcaTest {

  @Test
  void everyPrimitiveWorksWithNoJcaProviderInstalled() {
    CryptoProvider bc = CryptoProviders.byName("bc"); // before removal: byName itself is JCA-free
    Provider[] installed = Security.getProviders();
    try {
      for (Provider p : installed) {
        Security.removeProvider(p.getName());
      }
      assertThat(Security.getProviders()).isEmpty();
      assertThat(new JdkCryptoProvider().unavailableReason()).contains("the JCA has no");

      // HKDF (RFC 5869 A.3), X25519 (RFC 7748 §6.1), ChaCha20-Poly1305 packet (RFC 9001 A.5).
      Hkdf hkdf = new Hkdf(bc);
      assertThat(hex(hkdf.expand(hkdf.extract(new byte[0], hex("0b".repeat(22))), new byte[0],
          42))).startsWith("8da4e775a563c18f715f802a063c5a31");
      byte[] alice = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
      assertThat(hex(bc.x25519().publicKey(alice)))
          .isEqualTo("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
      byte[] secret = hex("9ac312a7f877468ebe69422748ad00a15443f18203a07d6060f688f30f21632b");
      OneRttPacketKeys keys = new OneRttPacketKeys(bc, AeadAlgorithm.CHACHA20_POLY1305,
          KeyLabels.QUIC_V1, secret, secret);
      ByteBuffer out = ByteBuffer.allocate(64);
      out.put(hex("4200bff4")).put((byte) 1);
      keys.seal(out, 0, 4, 654360564L);
      keys.applyHeaderProtection(out, 0, 1);
      assertThat(hex(java.util.Arrays.copyOf(out.array(), out.position())))
          .isEqualTo("4cfe4189655e5cd55c41f69080575d7999c25a5bfb");
      EpochPacketKeys gcm = EpochPacketKeys.create(bc, AeadAlgorithm.AES_128_GCM,
          KeyLabels.TERN_V1, secret, secret);
      ByteBuffer p = ByteBuffer.allocate(64);
      p.put(hex("c000")).put(new byte[20]); // first byte, 1-byte packet number, payload
      assertThat(gcm.seal(p, 0, 2, 0)).isTrue();
      gcm.applyHeaderProtection(p, 0, 1);
      assertThat(gcm.removeHeaderProtection(p, 0, 1, p.position())).isEqualTo(1);
      assertThat(gcm.open(p, 0, 2, p.position(), 0)).isEqualTo(22);
    } finally {
      for (int i = 0; i < installed.length; i++) {
        Security.insertProviderAt(installed[i], i + 1);
      }
    }
    assertThat(Security.getProviders()).hasSameSizeAs(installed);
  }
}
