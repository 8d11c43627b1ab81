package dev.tern.rpc.spi;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/**
 * Private keys in PEM: reads the three unencrypted forms OpenSSL writes and hands every transport
 * the one form they all read, PKCS#8 ({@code BEGIN PRIVATE KEY}). A SEC1 EC key ({@code BEGIN EC
 * PRIVATE KEY}, RFC 5915) or a PKCS#1 RSA key ({@code BEGIN RSA PRIVATE KEY}, RFC 8017 §A.1.2) is
 * wrapped in a PKCS#8 {@code PrivateKeyInfo} (RFC 5208 §5); nothing else is touched. Encrypted keys
 * are refused with the command that decrypts them.
 */
final class PemKeys {
  /** What to run to turn any OpenSSL private key into the form every transport reads. */
  static final String CONVERT_COMMAND = "openssl pkcs8 -topk8 -nocrypt -in key.pem -out key.pkcs8.pem";

  // RFC 5480 §2.1.1: id-ecPublicKey 1.2.840.10045.2.1.
  private static final byte[] EC_PUBLIC_KEY_OID = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};
  // RFC 8017 §A.1: rsaEncryption 1.2.840.113549.1.1.1, with NULL parameters.
  private static final byte[] RSA_ALGORITHM = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86,
      (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};

  private PemKeys() {}

  /**
   * {@code pem} as an unencrypted PKCS#8 PEM key.
   *
   * @throws IllegalArgumentException naming {@code parameter}, what was found and what to do
   */
  static byte[] toPkcs8(byte[] pem, String parameter) {
    String text = new String(pem, StandardCharsets.US_ASCII);
    if (text.contains("BEGIN ENCRYPTED PRIVATE KEY") || text.contains("Proc-Type: 4,ENCRYPTED")) {
      throw new IllegalArgumentException(parameter + " is an encrypted private key, which Tern does not read;"
          + " decrypt it first: " + CONVERT_COMMAND);
    }
    byte[] der;
    if ((der = block(text, "PRIVATE KEY")) != null) {
      parse(der, parameter, "PKCS#8");
      return pem.clone();
    }
    byte[] pkcs8;
    String form;
    if ((der = block(text, "EC PRIVATE KEY")) != null) {
      pkcs8 = fromSec1(der, parameter);
      form = "SEC1 EC";
    } else if ((der = block(text, "RSA PRIVATE KEY")) != null) {
      pkcs8 = sequence(new byte[] {0x02, 0x01, 0x00}, RSA_ALGORITHM, tlv(0x04, der));
      form = "PKCS#1 RSA";
    } else {
      throw new IllegalArgumentException(parameter + " holds no PEM private key (no '-----BEGIN PRIVATE KEY-----',"
          + " 'BEGIN EC PRIVATE KEY' or 'BEGIN RSA PRIVATE KEY' block); for a DER or other key file run: "
          + CONVERT_COMMAND + " (add -inform DER for DER)");
    }
    parse(pkcs8, parameter, form);
    String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(pkcs8);
    return ("-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n").getBytes(StandardCharsets.US_ASCII);
  }

  /** The key a PKCS#8 PEM holds (one {@link #toPkcs8} returned). */
  static PrivateKey privateKey(byte[] pkcs8Pem, String parameter) {
    byte[] der = block(new String(pkcs8Pem, StandardCharsets.US_ASCII), "PRIVATE KEY");
    if (der == null) {
      throw new IllegalArgumentException(parameter + " holds no PKCS#8 PEM private key");
    }
    return parse(der, parameter, "PKCS#8");
  }

  private static PrivateKey parse(byte[] pkcs8, String parameter, String form) {
    for (String algorithm : new String[] {"EC", "RSA", "Ed25519", "RSASSA-PSS"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
      } catch (GeneralSecurityException tryNext) {
        // not this algorithm
      }
    }
    throw new IllegalArgumentException(parameter + " is a " + form + " PEM block but not an EC, RSA or Ed25519"
        + " private key this JDK can read; check the file, or convert it: " + CONVERT_COMMAND);
  }

  /** The DER inside {@code -----BEGIN label-----}, or null if there is no such block. */
  private static byte[] block(String text, String label) {
    String begin = "-----BEGIN " + label + "-----";
    String end = "-----END " + label + "-----";
    int b = text.indexOf(begin);
    int e = b < 0 ? -1 : text.indexOf(end, b);
    if (e < 0) {
      return null;
    }
    try {
      return Base64.getMimeDecoder().decode(text.substring(b + begin.length(), e));
    } catch (IllegalArgumentException notBase64) {
      return null;
    }
  }

  /** RFC 5915 §3 ECPrivateKey to RFC 5208 PrivateKeyInfo; the curve comes from {@code parameters [0]}. */
  private static byte[] fromSec1(byte[] der, String parameter) {
    byte[] curve = null;
    try {
      int[] seq = header(der, 0);
      if (der[0] != 0x30) {
        throw new IllegalArgumentException("not a SEQUENCE");
      }
      int at = seq[0];
      int stop = seq[0] + seq[1];
      while (at < stop) {
        int[] h = header(der, at);
        if ((der[at] & 0xff) == 0xa0) { // parameters [0] EXPLICIT ECParameters: a namedCurve OID
          curve = java.util.Arrays.copyOfRange(der, h[0], h[0] + h[1]);
        }
        at = h[0] + h[1];
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(parameter + " is not a well-formed SEC1 EC private key (" + e.getMessage()
          + "); convert it: " + CONVERT_COMMAND, e);
    }
    if (curve == null || curve.length == 0 || curve[0] != 0x06) {
      throw new IllegalArgumentException(parameter + " is a SEC1 EC private key without its named curve;"
          + " convert it: " + CONVERT_COMMAND);
    }
    byte[] algorithm = sequence(EC_PUBLIC_KEY_OID, curve);
    return sequence(new byte[] {0x02, 0x01, 0x00}, algorithm, tlv(0x04, der));
  }

  /** {offset of the contents, length of the contents} of the DER element at {@code at}. */
  private static int[] header(byte[] der, int at) {
    int first = der[at + 1] & 0xff;
    if (first < 0x80) {
      return new int[] {at + 2, first};
    }
    int n = first & 0x7f;
    if (n == 0 || n > 3) {
      throw new IllegalArgumentException("unsupported DER length");
    }
    int len = 0;
    for (int i = 0; i < n; i++) {
      len = (len << 8) | (der[at + 2 + i] & 0xff);
    }
    if (at + 2 + n + len > der.length) {
      throw new IllegalArgumentException("truncated DER");
    }
    return new int[] {at + 2 + n, len};
  }

  private static byte[] sequence(byte[]... parts) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      body.write(p, 0, p.length);
    }
    return tlv(0x30, body.toByteArray());
  }

  /** A DER element: tag, definite length (X.690 §8.1.3), contents. */
  private static byte[] tlv(int tag, byte[] contents) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int len = contents.length;
    if (len < 0x80) {
      out.write(len);
    } else if (len < 0x100) {
      out.write(0x81);
      out.write(len);
    } else if (len < 0x10000) {
      out.write(0x82);
      out.write(len >> 8);
      out.write(len);
    } else {
      out.write(0x83);
      out.write(len >> 16);
      out.write(len >> 8);
      out.write(len);
    }
    out.write(contents, 0, contents.length);
    return out.toByteArray();
  }
}
