package dev.tern.transport.udp.crypto;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Chooses a {@link CryptoProvider} by name: {@code "jdk"}, {@code "bc"}, or {@code "auto"} (the
 * JDK's where it has every primitive, else BouncyCastle's).
 */
public final class CryptoProviders {
  /** The name that picks the first available provider. */
  public static final String AUTO = "auto";

  private CryptoProviders() {}

  /**
   * The provider called {@code name}.
   *
   * @throws IllegalArgumentException if the name is unknown or the provider cannot run here (the
   *     message says why)
   */
  public static CryptoProvider byName(String name) {
    String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
    switch (n) {
      case JdkCryptoProvider.NAME:
        return checked(new JdkCryptoProvider());
      case BcCryptoProvider.NAME:
        return checked(bc());
      case AUTO:
        return auto();
      default:
        throw new IllegalArgumentException("crypto provider must be one of jdk, bc, auto; got '"
            + name + "'");
    }
  }

  /**
   * The JDK's provider if it can run here, else BouncyCastle's. On Android always BouncyCastle's:
   * the JDK's says there that it cannot run ({@link JdkCryptoProvider}).
   */
  public static CryptoProvider auto() {
    return auto(JdkCryptoProvider::new);
  }

  /** {@link #auto()} with the JDK's provider made by {@code jdkProvider}. */
  static CryptoProvider auto(Supplier<CryptoProvider> jdkProvider) {
    List<String> reasons = new ArrayList<>();
    try {
      CryptoProvider jdk = jdkProvider.get();
      if (jdk.isAvailable()) {
        return jdk; // BouncyCastle is not even looked for: it may be absent from the class path
      }
      reasons.add(jdk.name() + ": " + jdk.unavailableReason());
    } catch (LinkageError e) {
      // A class library without the classes the JDK's provider names (Android's API level 26
      // has neither the XDH key specs nor ChaCha20ParameterSpec) may fail to link it, with a
      // NoClassDefFoundError or a VerifyError; on Android it says it cannot run before that can
      // happen, and anywhere else BouncyCastle's is the fallback all the same.
      reasons.add(JdkCryptoProvider.NAME + ": " + e);
    }
    CryptoProvider bc = bc();
    if (bc.isAvailable()) {
      return bc;
    }
    reasons.add(bc.name() + ": " + bc.unavailableReason());
    throw new IllegalStateException("no crypto provider can run here: " + reasons);
  }

  /** Both providers, available or not (for diagnostics and tests). */
  public static List<CryptoProvider> all() {
    return Collections.unmodifiableList(Arrays.asList(new JdkCryptoProvider(), bc()));
  }

  private static CryptoProvider bc() {
    String reason = probeBouncyCastle();
    return reason == null ? new BcCryptoProvider(null) : new UnavailableProvider("bc", reason);
  }

  /**
   * Why BouncyCastle cannot be used here, or null. Looked up by name from this class, which
   * names no BouncyCastle type: loading {@link BcCryptoProvider} itself fails with a
   * {@link NoClassDefFoundError} when the optional bcprov-jdk18on is not on the class path.
   */
  static String probeBouncyCastle() {
    String[] needed = {"org.bouncycastle.crypto.modes.GCMBlockCipher",
        "org.bouncycastle.crypto.modes.ChaCha20Poly1305",
        "org.bouncycastle.crypto.agreement.X25519Agreement", "org.bouncycastle.crypto.macs.HMac",
        "org.bouncycastle.crypto.Digest"};
    for (String c : needed) {
      try {
        Class.forName(c, false, CryptoProviders.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        return "BouncyCastle (bcprov-jdk18on) is not on the class path: " + c + " is missing";
      }
    }
    return null;
  }

  private static CryptoProvider checked(CryptoProvider p) {
    if (!p.isAvailable()) {
      throw new IllegalArgumentException("crypto provider '" + p.name() + "' cannot run here: "
          + p.unavailableReason());
    }
    return p;
  }

  /** A provider that cannot run here: it says why and refuses every factory call. */
  private static final class UnavailableProvider implements CryptoProvider {
    private final String name;
    private final String reason;

    UnavailableProvider(String name, String reason) {
      this.name = name;
      this.reason = reason;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String unavailableReason() {
      return reason;
    }

    private IllegalStateException refused() {
      return new IllegalStateException("crypto provider '" + name + "' cannot run here: " + reason);
    }

    @Override
    public Hmac newHmacSha256() {
      throw refused();
    }

    @Override
    public Sha256 newSha256() {
      throw refused();
    }

    @Override
    public Aead newAead(AeadAlgorithm algorithm, byte[] key) {
      throw refused();
    }

    @Override
    public HeaderMask newHeaderMask(AeadAlgorithm algorithm, byte[] hpKey) {
      throw refused();
    }

    @Override
    public X25519 x25519() {
      throw refused();
    }
  }
}
