package dev.tern.transport.udp.crypto;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.NamedParameterSpec;
import java.security.spec.XECPrivateKeySpec;
import java.security.spec.XECPublicKeySpec;
import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.codehaus.mojo.animal_sniffer.IgnoreJRERequirement;

/**
 * The {@code "jdk"} provider: the JCA's AES/GCM/NoPadding, ChaCha20-Poly1305, AES/ECB, ChaCha20,
 * XDH (X25519), HmacSHA256 and SHA-256, all present in every Java 11+ JDK. The JCA cipher API
 * takes a fresh parameter object per message (GCMParameterSpec, IvParameterSpec,
 * ChaCha20ParameterSpec), so this provider allocates a few small objects per packet; the figures
 * are in docs/udp-crypto.md.
 *
 * <p>Never on Android: there it says it cannot run before it asks the JCA anything, so {@link
 * CryptoProviders#auto()} takes BouncyCastle's provider and {@code byName("jdk")} refuses.
 * Android's JCA is not the JDK's (Conscrypt's algorithms under names and parameter specs of its
 * own; no X25519 or ChaCha20-Poly1305 before API level 33), and API level 26 has none of the JDK 11
 * classes this provider uses ({@code XECPrivateKeySpec}, {@code XECPublicKeySpec}, {@code
 * NamedParameterSpec}, {@code ChaCha20ParameterSpec}). Those are used only in the two methods
 * that run once this provider was chosen ({@code JdkX25519.agree}, {@code
 * ChaChaHeaderMask.mask}), marked {@link IgnoreJRERequirement} for the Android API check (README,
 * "Android").
 */
public final class JdkCryptoProvider implements CryptoProvider {
  /** The provider's name. */
  public static final String NAME = "jdk";

  private static final String[][] NEEDED = {
      {"Cipher", "AES/GCM/NoPadding"}, {"Cipher", "ChaCha20-Poly1305"},
      {"Cipher", "AES/ECB/NoPadding"}, {"Cipher", "ChaCha20"}, {"Mac", "HmacSHA256"},
      {"MessageDigest", "SHA-256"}, {"KeyAgreement", "X25519"}, {"KeyFactory", "XDH"}};

  private final String unavailableReason;

  /** The provider, which finds out whether it can run here. */
  public JdkCryptoProvider() {
    this(onAndroid());
  }

  JdkCryptoProvider(boolean android) {
    this.unavailableReason = android
        ? "on Android the JCA is not the JDK's; the bc provider (BouncyCastle) runs there"
        : probe();
  }

  /** Whether this is Android, whose runtime (ART, as Dalvik before it) says it is Dalvik. */
  static boolean onAndroid() {
    return "Dalvik".equals(System.getProperty("java.vm.name"));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String unavailableReason() {
    return unavailableReason;
  }

  private static String probe() {
    for (String[] n : NEEDED) {
      try {
        switch (n[0]) {
          case "Cipher": Cipher.getInstance(n[1]); break;
          case "Mac": Mac.getInstance(n[1]); break;
          case "MessageDigest": MessageDigest.getInstance(n[1]); break;
          case "KeyAgreement": KeyAgreement.getInstance(n[1]); break;
          default: KeyFactory.getInstance(n[1]); break;
        }
      } catch (GeneralSecurityException | RuntimeException e) {
        return "the JCA has no " + n[0] + " " + n[1] + " (" + e.getMessage() + ")";
      }
    }
    return null;
  }

  @Override
  public Hmac newHmacSha256() {
    Mac mac = JdkCrypto.instance(() -> Mac.getInstance("HmacSHA256"));
    return new Hmac() {
      @Override
      public void init(byte[] key) {
        // HMAC pads its key with zeros to the block size (RFC 2104 §2), so an empty key equals a
        // single zero byte; SecretKeySpec refuses empty keys.
        byte[] k = key.length == 0 ? new byte[1] : key;
        try {
          mac.init(new SecretKeySpec(k, "HmacSHA256"));
        } catch (InvalidKeyException e) {
          throw new IllegalStateException("HmacSHA256 refused a key", e);
        }
      }

      @Override
      public void update(byte[] in, int off, int len) {
        mac.update(in, off, len);
      }

      @Override
      public void doFinal(byte[] out, int off) {
        try {
          mac.doFinal(out, off);
        } catch (GeneralSecurityException e) {
          throw new IllegalArgumentException("HMAC output does not fit at offset " + off, e);
        }
      }
    };
  }

  @Override
  public Sha256 newSha256() {
    MessageDigest md = JdkCrypto.instance(() -> MessageDigest.getInstance("SHA-256"));
    return new Sha256() {
      @Override
      public void update(byte[] in, int off, int len) {
        md.update(in, off, len);
      }

      @Override
      public void doFinal(byte[] out, int off) {
        try {
          md.digest(out, off, OUTPUT_BYTES);
        } catch (GeneralSecurityException e) {
          throw new IllegalArgumentException("digest does not fit at offset " + off, e);
        }
      }
    };
  }

  @Override
  public Aead newAead(AeadAlgorithm algorithm, byte[] key) {
    return new JdkAead(algorithm, key);
  }

  @Override
  public HeaderMask newHeaderMask(AeadAlgorithm algorithm, byte[] hpKey) {
    return algorithm.isAes()
        ? new JdkCrypto.AesHeaderMask(algorithm, hpKey)
        : new JdkCrypto.ChaChaHeaderMask(hpKey);
  }

  @Override
  public X25519 x25519() {
    return JdkX25519.INSTANCE;
  }

  /** X25519 through the JCA's XDH key agreement. */
  private enum JdkX25519 implements X25519 {
    INSTANCE;

    private static final byte[] BASE_POINT = new byte[KEY_BYTES];

    static {
      BASE_POINT[0] = 9; // RFC 7748 §4.1: u = 9
    }

    @Override
    public byte[] publicKey(byte[] privateKey) {
      byte[] out = new byte[KEY_BYTES];
      if (!agree(privateKey, BASE_POINT, out)) {
        throw new IllegalStateException("X25519 of the base point cannot be zero");
      }
      return out;
    }

    // The XEC key specs are Java 11: this never runs on Android (the class comment).
    @Override
    @IgnoreJRERequirement
    public boolean agree(byte[] privateKey, byte[] peerPublicKey, byte[] out) {
      JdkCrypto.checkLength("privateKey", privateKey, KEY_BYTES);
      JdkCrypto.checkLength("peerPublicKey", peerPublicKey, KEY_BYTES);
      try {
        KeyFactory kf = KeyFactory.getInstance("XDH");
        PrivateKey priv = kf.generatePrivate(
            new XECPrivateKeySpec(NamedParameterSpec.X25519, privateKey.clone()));
        PublicKey pub = kf.generatePublic(
            new XECPublicKeySpec(NamedParameterSpec.X25519, decodeU(peerPublicKey)));
        KeyAgreement ka = KeyAgreement.getInstance("XDH");
        ka.init(priv);
        ka.doPhase(pub, true);
        ka.generateSecret(out, 0);
        for (int i = 0; i < KEY_BYTES; i++) {
          if (out[i] != 0) {
            return true;
          }
        }
        return false;
      } catch (InvalidKeyException e) {
        return false; // the JDK refuses a low-order point ("Point has small order")
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("XDH failed", e);
      }
    }

    /** RFC 7748 §5: little-endian, the top bit masked. */
    private static BigInteger decodeU(byte[] le) {
      byte[] be = new byte[KEY_BYTES];
      for (int i = 0; i < KEY_BYTES; i++) {
        be[i] = le[KEY_BYTES - 1 - i];
      }
      be[0] &= 0x7f;
      return new BigInteger(1, be);
    }
  }
}
