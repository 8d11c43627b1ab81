package dev.tern.transport.udp.crypto;

import static dev.tern.transport.udp.crypto.TestProviders.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.AEADCipher;
import org.bouncycastle.crypto.modes.ChaCha20Poly1305;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Known-answer tests of each provider's AEADs, and a comparison with BouncyCastle's own AEAD
 * classes used the plain way (a new parameter object per message), over many messages through
 * one {@link Aead}: the parameter objects and buffers an {@link Aead} reuses between messages
 * must not change a single output byte, nor let a forgery through.
 */
class AeadVectorsTest {

  /** One known answer: key, nonce, associated data, plaintext, ciphertext, tag. */
  record Vector(String name, AeadAlgorithm algorithm, String key, String nonce, String aad,
      String plaintext, String ciphertext, String tag) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final Vector RFC8439_2_8_2 = new Vector("RFC 8439 §2.8.2",
      AeadAlgorithm.CHACHA20_POLY1305,
      "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
      "070000004041424344454647", "50515253c0c1c2c3c4c5c6c7",
      "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
          + "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
          + "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
          + "637265656e20776f756c642062652069742e",
      "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
          + "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
          + "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
          + "3ff4def08e4b7a9de576d26586cec64b6116",
      "1ae10b594f09e26a7e902ecbd0600691");

  private static final String GCM_PLAINTEXT = "d9313225f88406e5a55909c5aff5269a"
      + "86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525"
      + "b16aedf5aa0de657ba637b39";
  private static final String GCM_AAD = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
  private static final String GCM_IV = "cafebabefacedbaddecaf888";

  /** The GCM specification's (McGrew and Viega, as revised for NIST SP 800-38D) test case 4. */
  static final Vector GCM_TEST_CASE_4 = new Vector("GCM test case 4 (AES-128)",
      AeadAlgorithm.AES_128_GCM, "feffe9928665731c6d6a8f9467308308", GCM_IV, GCM_AAD,
      GCM_PLAINTEXT,
      "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
          + "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
      "5bc94fbc3221a5db94fae95ae7121a47");

  /** The same specification's test case 16 (AES-256). */
  static final Vector GCM_TEST_CASE_16 = new Vector("GCM test case 16 (AES-256)",
      AeadAlgorithm.AES_256_GCM,
      "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", GCM_IV, GCM_AAD,
      GCM_PLAINTEXT,
      "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
          + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
      "76fc6ece0f4e1768cddf8853bb2d551b");

  static Stream<Arguments> vectors() {
    return TestProviders.both().flatMap(p -> Stream.of(RFC8439_2_8_2, GCM_TEST_CASE_4,
        GCM_TEST_CASE_16).map(v -> Arguments.of(p, v)));
  }

  @ParameterizedTest
  @MethodSource("vectors")
  void sealsAndOpensTheKnownAnswer(CryptoProvider provider, Vector v) {
    byte[] aad = hex(v.aad());
    byte[] plaintext = hex(v.plaintext());
    byte[] expected = hex(v.ciphertext() + v.tag());
    // Twice through one object: the second message, under reused parameter objects, must
    // come out the same as the first under freshly keyed ones.
    Aead sealer = provider.newAead(v.algorithm(), hex(v.key()));
    Aead opener = provider.newAead(v.algorithm(), hex(v.key()));
    byte[] otherNonce = hex(v.nonce());
    otherNonce[11] ^= 0x55;
    for (byte[] nonce : new byte[][] {otherNonce, hex(v.nonce())}) {
      byte[] out = new byte[plaintext.length + AeadAlgorithm.TAG_BYTES];
      int n = sealer.seal(nonce, aad, 0, aad.length, plaintext, 0, plaintext.length, out, 0);
      assertThat(n).isEqualTo(out.length);
      byte[] back = new byte[out.length];
      assertThat(opener.open(nonce, aad, 0, aad.length, out, 0, out.length, back, 0))
          .isEqualTo(plaintext.length);
      assertThat(Arrays.copyOf(back, plaintext.length)).isEqualTo(plaintext);
      if (Arrays.equals(nonce, hex(v.nonce()))) {
        assertThat(hex(out)).isEqualTo(hex(expected));
      }
    }
    // Every single-bit change of the ciphertext, the tag or the associated data is refused.
    for (int bit = 0; bit < 8 * expected.length; bit += 7) {
      byte[] forged = expected.clone();
      forged[bit / 8] ^= (byte) (1 << (bit % 8));
      assertThat(opener.open(hex(v.nonce()), aad, 0, aad.length, forged, 0, forged.length,
          new byte[forged.length], 0)).as("bit %d", bit).isEqualTo(-1);
    }
    byte[] otherAad = aad.clone();
    otherAad[0] ^= 1;
    assertThat(opener.open(hex(v.nonce()), otherAad, 0, aad.length, expected, 0,
        expected.length, new byte[expected.length], 0)).isEqualTo(-1);
    // And the genuine message still opens after the forgeries.
    assertThat(opener.open(hex(v.nonce()), aad, 0, aad.length, expected, 0, expected.length,
        new byte[expected.length], 0)).isEqualTo(plaintext.length);
  }

  static Stream<Arguments> providersAndAeads() {
    return TestProviders.bothWithAeads();
  }

  /** BouncyCastle's AEAD class, used the plain way: a new cipher and parameters per message. */
  private static byte[] reference(AeadAlgorithm a, byte[] key, byte[] nonce, byte[] aad,
      byte[] plaintext) throws Exception {
    AEADCipher c = a.isAes() ? GCMBlockCipher.newInstance(AESEngine.newInstance())
        : new ChaCha20Poly1305();
    c.init(true, new AEADParameters(new KeyParameter(key), 128, nonce));
    c.processAADBytes(aad, 0, aad.length);
    byte[] out = new byte[plaintext.length + AeadAlgorithm.TAG_BYTES];
    int n = c.processBytes(plaintext, 0, plaintext.length, out, 0);
    c.doFinal(out, n);
    return out;
  }

  @ParameterizedTest
  @MethodSource("providersAndAeads")
  void manyMessagesThroughOneObjectMatchBouncyCastlesAeadUsedPlainly(CryptoProvider provider,
      AeadAlgorithm a) throws Exception {
    Random random = new Random(8439);
    byte[] key = new byte[a.keyBytes()];
    random.nextBytes(key);
    Aead sealer = provider.newAead(a, key);
    Aead opener = provider.newAead(a, key);
    byte[] nonce = new byte[AeadAlgorithm.NONCE_BYTES];
    for (int i = 0; i < 300; i++) {
      random.nextBytes(nonce);
      byte[] aad = new byte[random.nextInt(40)];
      byte[] plaintext = new byte[random.nextInt(1300)];
      random.nextBytes(aad);
      random.nextBytes(plaintext);
      byte[] out = new byte[plaintext.length + AeadAlgorithm.TAG_BYTES + 7];
      int n = sealer.seal(nonce, aad, 0, aad.length, plaintext, 0, plaintext.length, out, 7);
      byte[] expected = reference(a, key, nonce, aad, plaintext);
      assertThat(Arrays.copyOfRange(out, 7, 7 + n)).as("message %d", i).isEqualTo(expected);
      byte[] back = new byte[out.length];
      if (i % 3 == 0) {
        byte[] forged = expected.clone();
        forged[random.nextInt(forged.length)] ^= (byte) (1 + random.nextInt(255));
        assertThat(opener.open(nonce, aad, 0, aad.length, forged, 0, forged.length, back, 0))
            .as("forged message %d", i).isEqualTo(-1);
      }
      assertThat(opener.open(nonce, aad, 0, aad.length, expected, 0, expected.length, back, 3))
          .isEqualTo(plaintext.length);
      assertThat(Arrays.copyOfRange(back, 3, 3 + plaintext.length)).isEqualTo(plaintext);
    }
  }

  /** BouncyCastle and this module say "nonce", the JCA's GCM says "iv". */
  private static final String REUSE_REFUSED = "(?is).*(reuse a nonce|reuse nonce|reuse iv|nonce).*";

  @ParameterizedTest
  @MethodSource("providersAndAeads")
  void aNonceIsNeverSealedTwiceInARow(CryptoProvider provider, AeadAlgorithm a) {
    Aead aead = provider.newAead(a, new byte[a.keyBytes()]);
    byte[] in = new byte[40];
    byte[] out = new byte[in.length + AeadAlgorithm.TAG_BYTES];
    byte[] first = new byte[AeadAlgorithm.NONCE_BYTES];
    byte[] second = first.clone();
    second[11] = 1;
    aead.seal(first, in, 0, 0, in, 0, in.length, out, 0);
    aead.seal(second, in, 0, 0, in, 0, in.length, out, 0);
    assertThatThrownBy(() -> aead.seal(second.clone(), in, 0, 0, in, 0, in.length, out, 0))
        .hasMessageMatching(REUSE_REFUSED);
    // Refused, then the next nonce goes through and is still guarded.
    byte[] third = first.clone();
    third[11] = 2;
    aead.seal(third, in, 0, 0, in, 0, in.length, out, 0);
    assertThatThrownBy(() -> aead.seal(third.clone(), in, 0, 0, in, 0, in.length, out, 0))
        .hasMessageMatching(REUSE_REFUSED);
  }
}
