package dev.tern.transport.udp.crypto;

import static dev.tern.transport.udp.crypto.TestProviders.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** HKDF against RFC 5869 Appendix A.1-A.3 (the SHA-256 cases), and HKDF-Expand-Label. */
class HkdfVectorsTest {

  private static byte[] range(int from, int toInclusive) {
    byte[] b = new byte[toInclusive - from + 1];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (from + i);
    }
    return b;
  }

  private static byte[] repeat(int value, int n) {
    byte[] b = new byte[n];
    java.util.Arrays.fill(b, (byte) value);
    return b;
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void rfc5869TestCase1(CryptoProvider provider) {
    Hkdf hkdf = new Hkdf(provider);
    byte[] prk = hkdf.extract(range(0x00, 0x0c), repeat(0x0b, 22));
    assertThat(hex(prk))
        .isEqualTo("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5");
    assertThat(hex(hkdf.expand(prk, range(0xf0, 0xf9), 42))).isEqualTo(
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void rfc5869TestCase2LongInputs(CryptoProvider provider) {
    Hkdf hkdf = new Hkdf(provider);
    byte[] prk = hkdf.extract(range(0x60, 0xaf), range(0x00, 0x4f));
    assertThat(hex(prk))
        .isEqualTo("06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244");
    assertThat(hex(hkdf.expand(prk, range(0xb0, 0xff), 82))).isEqualTo(
        "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
            + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
            + "cc30c58179ec3e87c14c01d5c1f3434f1d87");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void rfc5869TestCase3EmptySaltAndInfo(CryptoProvider provider) {
    Hkdf hkdf = new Hkdf(provider);
    byte[] prk = hkdf.extract(new byte[0], repeat(0x0b, 22));
    assertThat(hex(prk))
        .isEqualTo("19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04");
    assertThat(hex(hkdf.expand(prk, new byte[0], 42))).isEqualTo(
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void expandLabelBuildsTheTls13HkdfLabel(CryptoProvider provider) {
    // RFC 9001 Appendix A.1 lists the HkdfLabel of "quic key" for a 16-byte key:
    // 00100e746c7331332071756963206b657900. Expanding with that info must equal expandLabel.
    Hkdf hkdf = new Hkdf(provider);
    byte[] secret = range(1, 32);
    assertThat(hkdf.expandLabel(secret, "quic key", new byte[0], 16))
        .isEqualTo(hkdf.expand(secret, hex("00100e746c7331332071756963206b657900"), 16));
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void refusesOutputLongerThan255Blocks(CryptoProvider provider) {
    Hkdf hkdf = new Hkdf(provider);
    assertThatThrownBy(() -> hkdf.expand(new byte[32], new byte[0], 255 * 32 + 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8161");
  }
}
