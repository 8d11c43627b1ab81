package dev.tern.transport.udp.crypto;

/**
 * The HKDF-Expand-Label labels (RFC 8446 §7.1) that turn a traffic secret into packet keys: the
 * AEAD key, the IV, the header-protection key (RFC 9001 §5.1) and the next generation's secret
 * (RFC 9001 §6.1). Tern uses its own labels so that its keys can never equal QUIC's;
 * {@link #QUIC_V1} exists for checking against RFC 9001's vectors.
 *
 * @param key label of the AEAD key
 * @param iv label of the 12-byte IV
 * @param hp label of the header-protection key
 * @param ku label of the next key generation's secret
 */
public record KeyLabels(String key, String iv, String hp, String ku) {
  /** RFC 9001 §5.1, §6.1: "quic key", "quic iv", "quic hp", "quic ku". */
  public static final KeyLabels QUIC_V1 = new KeyLabels("quic key", "quic iv", "quic hp", "quic ku");
  /** Tern version 1: "tern key", "tern iv", "tern hp", "tern ku". */
  public static final KeyLabels TERN_V1 = new KeyLabels("tern key", "tern iv", "tern hp", "tern ku");
}
