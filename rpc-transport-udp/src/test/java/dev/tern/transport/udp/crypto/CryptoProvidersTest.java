package dev.tern.transport.udp.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Choosing a provider, and the errors bad arguments get. */
class CryptoProvidersTest {

  @Test
  void namesChooseProvidersAndAutoPrefersTheJdkWhereItHasEverything() {
    assertThat(CryptoProviders.byName("jdk")).isInstanceOf(JdkCryptoProvider.class);
    assertThat(CryptoProviders.byName(" BC ")).isInstanceOf(BcCryptoProvider.class);
    assertThat(CryptoProviders.byName("auto").name()).isEqualTo("jdk");
    assertThat(CryptoProviders.all()).allMatch(CryptoProvider::isAvailable);
  }

  @Test
  void onAndroidTheJdkProviderCannotRunAndAutoTakesBouncyCastle() {
    assertThat(JdkCryptoProvider.onAndroid()).as("this is a JDK").isFalse();
    JdkCryptoProvider android = new JdkCryptoProvider(true);
    assertThat(android.isAvailable()).isFalse();
    assertThat(android.unavailableReason()).contains("Android");
    assertThat(CryptoProviders.auto(() -> android)).isInstanceOf(BcCryptoProvider.class);
  }

  @Test
  void aJdkProviderThatFailsToLinkLeavesAutoToBouncyCastle() {
    assertThat(CryptoProviders.auto(() -> {
      throw new NoClassDefFoundError("java/security/spec/XECPrivateKeySpec");
    })).isInstanceOf(BcCryptoProvider.class);
  }

  @Test
  void anUnknownNameIsRefusedWithTheChoices() {
    assertThatThrownBy(() -> CryptoProviders.byName("conscrypt"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("crypto provider must be one of jdk, bc, auto; got 'conscrypt'");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void keysOfTheWrongLengthAreRefusedByName(CryptoProvider p) {
    assertThatThrownBy(() -> p.newAead(AeadAlgorithm.AES_128_GCM, new byte[32]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key must be 16 bytes, got 32 bytes");
    assertThatThrownBy(() -> p.newHeaderMask(AeadAlgorithm.CHACHA20_POLY1305, new byte[16]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("hpKey must be 32 bytes, got 16 bytes");
    assertThatThrownBy(() -> p.x25519().agree(new byte[31], new byte[32], new byte[32]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("privateKey must be 32 bytes, got 31 bytes");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void x25519MatchesRfc7748AndRefusesALowOrderPoint(CryptoProvider p) {
    // RFC 7748 §6.1.
    byte[] alice = TestProviders.hex(
        "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    byte[] bob = TestProviders.hex(
        "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    byte[] shared = new byte[32];
    assertThat(p.x25519().agree(alice, p.x25519().publicKey(bob), shared)).isTrue();
    assertThat(TestProviders.hex(shared))
        .isEqualTo("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    assertThat(p.x25519().agree(alice, new byte[32], shared)).as("u = 0 has order 1").isFalse();
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void oneRttKeysRefuseLimitsBeyondTheAeads(CryptoProvider p) {
    byte[] s = new byte[32];
    assertThatThrownBy(() -> new OneRttPacketKeys(p, AeadAlgorithm.AES_128_GCM,
        KeyLabels.TERN_V1, s, s, 10, (1L << 23) + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("confidentialityLimit (8388609) <= 8388608");
  }
}
