package dev.tern.transport.udp.crypto;

import org.bouncycastle.crypto.agreement.X25519Agreement;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.X25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.X25519PublicKeyParameters;

/**
 * The {@code "bc"} provider: BouncyCastle's lightweight API ({@code org.bouncycastle.crypto.*})
 * called directly, never through the JCA, so it works where the platform's JCA lacks X25519 or
 * ChaCha20-Poly1305 (Android before API 33) and needs no provider registration. Needs
 * {@code bcprov-jdk18on} on the class path (an optional dependency of this module).
 */
public final class BcCryptoProvider implements CryptoProvider {
  /** The provider's name. */
  public static final String NAME = "bc";

  private final String unavailableReason;

  /** Use {@link CryptoProviders#byName}; direct construction skips the availability check. */
  BcCryptoProvider(String unavailableReason) {
    this.unavailableReason = unavailableReason;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String unavailableReason() {
    return unavailableReason;
  }

  @Override
  public Hmac newHmacSha256() {
    HMac mac = new HMac(new SHA256Digest());
    return new Hmac() {
      @Override
      public void init(byte[] key) {
        mac.init(new KeyParameter(key));
      }

      @Override
      public void update(byte[] in, int off, int len) {
        mac.update(in, off, len);
      }

      @Override
      public void doFinal(byte[] out, int off) {
        mac.doFinal(out, off);
      }
    };
  }

  @Override
  public Sha256 newSha256() {
    SHA256Digest d = new SHA256Digest();
    return new Sha256() {
      @Override
      public void update(byte[] in, int off, int len) {
        d.update(in, off, len);
      }

      @Override
      public void doFinal(byte[] out, int off) {
        d.doFinal(out, off);
      }
    };
  }

  @Override
  public Aead newAead(AeadAlgorithm algorithm, byte[] key) {
    return new BcAead(algorithm, key);
  }

  @Override
  public HeaderMask newHeaderMask(AeadAlgorithm algorithm, byte[] hpKey) {
    return algorithm.isAes()
        ? new BcHeaderMasks.Aes(algorithm, hpKey)
        : new BcHeaderMasks.ChaCha(hpKey);
  }

  @Override
  public X25519 x25519() {
    return BcX25519.INSTANCE;
  }

  /** X25519 with {@link X25519Agreement}. */
  private enum BcX25519 implements X25519 {
    INSTANCE;

    @Override
    public byte[] publicKey(byte[] privateKey) {
      JdkCrypto.checkLength("privateKey", privateKey, KEY_BYTES);
      return new X25519PrivateKeyParameters(privateKey, 0).generatePublicKey().getEncoded();
    }

    @Override
    public boolean agree(byte[] privateKey, byte[] peerPublicKey, byte[] out) {
      JdkCrypto.checkLength("privateKey", privateKey, KEY_BYTES);
      JdkCrypto.checkLength("peerPublicKey", peerPublicKey, KEY_BYTES);
      X25519Agreement ka = new X25519Agreement();
      ka.init(new X25519PrivateKeyParameters(privateKey, 0));
      try {
        ka.calculateAgreement(new X25519PublicKeyParameters(peerPublicKey, 0), out, 0);
        return true;
      } catch (IllegalStateException e) {
        return false; // BouncyCastle refuses an all-zero result (RFC 7748 §6.1)
      }
    }
  }
}
