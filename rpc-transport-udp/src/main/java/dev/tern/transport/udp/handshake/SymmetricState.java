package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.Hkdf;
import dev.tern.transport.udp.crypto.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Noise's SymmetricState (Noise revision 34 §5.2) over SHA-256: the chaining key {@code ck}, the
 * handshake hash {@code h} and a {@link CipherState}. Noise's HKDF (§4.3) is RFC 5869's with an
 * empty info: HKDF(ck, ikm, n) = Expand(Extract(salt = ck, ikm), "", 32 n).
 */
final class SymmetricState {
  static final int HASH_LEN = Sha256.OUTPUT_BYTES;

  private final CryptoProvider provider;
  private final AeadAlgorithm algorithm;
  private final Sha256 sha256;
  private final Hkdf hkdf;
  private final CipherState cipher;
  private byte[] ck;
  private byte[] h;

  /** §5.2 InitializeSymmetric(protocol_name). */
  SymmetricState(CryptoProvider provider, AeadAlgorithm algorithm, String protocolName) {
    this.provider = provider;
    this.algorithm = algorithm;
    this.sha256 = provider.newSha256();
    this.hkdf = new Hkdf(provider);
    this.cipher = new CipherState(provider, algorithm);
    byte[] name = protocolName.getBytes(StandardCharsets.US_ASCII);
    if (name.length <= HASH_LEN) {
      h = Arrays.copyOf(name, HASH_LEN); // padded with zeros
    } else {
      h = hash(name);
    }
    ck = h.clone();
  }

  private byte[] hash(byte[]... parts) {
    for (byte[] p : parts) {
      sha256.update(p, 0, p.length);
    }
    byte[] out = new byte[HASH_LEN];
    sha256.doFinal(out, 0);
    return out;
  }

  private byte[][] noiseHkdf(byte[] ikm, int outputs) {
    byte[] okm = hkdf.expand(hkdf.extract(ck, ikm), new byte[0], outputs * HASH_LEN);
    byte[][] out = new byte[outputs][];
    for (int i = 0; i < outputs; i++) {
      out[i] = Arrays.copyOfRange(okm, i * HASH_LEN, (i + 1) * HASH_LEN);
    }
    return out;
  }

  /** §5.2 MixKey(input_key_material). */
  void mixKey(byte[] ikm) {
    byte[][] o = noiseHkdf(ikm, 2);
    ck = o[0];
    cipher.initializeKey(o[1]); // HASHLEN is 32: no truncation
  }

  /** §5.2 MixHash(data): h = HASH(h || data). */
  void mixHash(byte[] data) {
    h = hash(h, data);
  }

  /** §5.2 MixKeyAndHash(input_key_material), used for psk tokens. */
  void mixKeyAndHash(byte[] ikm) {
    byte[][] o = noiseHkdf(ikm, 3);
    ck = o[0];
    mixHash(o[1]);
    cipher.initializeKey(o[2]);
  }

  /** §5.2 GetHandshakeHash(). */
  byte[] handshakeHash() {
    return h.clone();
  }

  /** The chaining key, for key export (docs/udp-crypto.md §6). */
  byte[] chainingKey() {
    return ck.clone();
  }

  boolean hasKey() {
    return cipher.hasKey();
  }

  /** §5.2 EncryptAndHash(plaintext): the ciphertext, also mixed into h. */
  byte[] encryptAndHash(byte[] plaintext) throws HandshakeException {
    byte[] out = new byte[plaintext.length + (cipher.hasKey() ? AeadAlgorithm.TAG_BYTES : 0)];
    cipher.encryptWithAd(h, plaintext, 0, plaintext.length, out, 0);
    mixHash(out);
    return out;
  }

  /** §5.2 DecryptAndHash(ciphertext). */
  byte[] decryptAndHash(byte[] ciphertext) throws HandshakeException {
    int plainLen = ciphertext.length - (cipher.hasKey() ? AeadAlgorithm.TAG_BYTES : 0);
    if (plainLen < 0) {
      throw new HandshakeException(HandshakeError.MALFORMED_MESSAGE,
          "ciphertext of " + ciphertext.length + " bytes is shorter than its tag");
    }
    byte[] out = new byte[Math.max(plainLen, 0) + AeadAlgorithm.TAG_BYTES];
    int n = cipher.decryptWithAd(h, ciphertext, 0, ciphertext.length, out, 0);
    mixHash(ciphertext);
    return Arrays.copyOf(out, n);
  }

  /** §5.2 Split(): the raw keys of the two CipherStates (initiator to responder first). */
  byte[][] splitKeys() {
    return noiseHkdf(new byte[0], 2);
  }

  /** §5.2 Split() as CipherStates. */
  CipherState[] split() {
    byte[][] k = splitKeys();
    CipherState c1 = new CipherState(provider, algorithm);
    CipherState c2 = new CipherState(provider, algorithm);
    c1.initializeKey(k[0]);
    c2.initializeKey(k[1]);
    return new CipherState[] {c1, c2};
  }
}
