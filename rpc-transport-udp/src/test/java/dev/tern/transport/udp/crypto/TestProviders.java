package dev.tern.transport.udp.crypto;

import java.util.HexFormat;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** The providers every crypto test runs against, and hex conversions. */
public final class TestProviders {
  private TestProviders() {}

  /** The JDK's provider, then BouncyCastle's on its own. */
  public static Stream<CryptoProvider> both() {
    return Stream.of(CryptoProviders.byName("jdk"), CryptoProviders.byName("bc"));
  }

  /** Each provider with each AEAD. */
  public static Stream<Arguments> bothWithAeads() {
    return both().flatMap(p -> Stream.of(AeadAlgorithm.values()).map(a -> Arguments.of(p, a)));
  }

  /** Bytes of a hex string (spaces ignored). */
  public static byte[] hex(String s) {
    return HexFormat.of().parseHex(s.replace(" ", "").replace("\n", ""));
  }

  /** Hex of bytes. */
  public static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }
}
