package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProviders;
import org.junit.jupiter.api.Test;

/**
 * What a configuration that names no provider or cipher uses: BouncyCastle's provider where it is
 * on the class path (it is on this module's test class path) with ChaCha20-Poly1305, whose
 * packets allocate nothing; with the JDK's provider AES-256-GCM; a cipher named is kept.
 */
class DefaultCryptoTest {

  @Test
  void theDefaultIsBouncyCastleWithChaCha20Poly1305() {
    ConnectionConfig c = ConnectionConfig.builder().build();
    assertThat(c.cryptoProvider().name()).isEqualTo("bc");
    assertThat(c.handshakeCipher()).isEqualTo(AeadAlgorithm.CHACHA20_POLY1305);
  }

  @Test
  void theJdkProviderDefaultsToAes256Gcm() {
    ConnectionConfig c = ConnectionConfig.builder().cryptoProvider(CryptoProviders.byName("jdk"))
        .build();
    assertThat(c.handshakeCipher()).isEqualTo(AeadAlgorithm.AES_256_GCM);
  }

  @Test
  void aNamedCipherIsKeptWhateverTheProvider() {
    assertThat(ConnectionConfig.builder().handshakeCipher(AeadAlgorithm.AES_256_GCM).build()
        .handshakeCipher()).isEqualTo(AeadAlgorithm.AES_256_GCM);
    assertThat(ConnectionConfig.builder().cryptoProvider(CryptoProviders.byName("jdk"))
        .handshakeCipher(AeadAlgorithm.CHACHA20_POLY1305).build().handshakeCipher())
        .isEqualTo(AeadAlgorithm.CHACHA20_POLY1305);
  }
}
