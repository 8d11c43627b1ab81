package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.Hkdf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The keys a {@link SealedTicketStore} seals tickets under: the current one issues, the previous
 * ones still open tickets issued before a rotation (until those expire). Each key has an id, the
 * first byte of every ticket sealed under it, so that opening tries one key only.
 *
 * <p>Instances of a server that hold the same keys open each other's tickets, so a client that
 * resumes on another instance behind a load balancer still resumes. {@link #derive} makes the
 * keys from the server's static keys, so instances that share a server key share ticket keys
 * without further configuration; {@link #of} takes keys an operator distributes (to rotate ticket
 * keys on their own schedule, or to keep them apart from the server key).
 */
public final class TicketKeys {
  /** The label of a derived ticket key (docs/udp-crypto.md §2). */
  public static final String LABEL = "tern ticket";
  /** Length of a ticket key: AES-256-GCM and ChaCha20-Poly1305 both take 32 bytes. */
  public static final int KEY_BYTES = 32;

  /**
   * One ticket key.
   *
   * @param id its id, 0..255, the first byte of the tickets it seals
   * @param secret its 32 bytes (keep them secret: they open every ticket's PSK)
   */
  public record Key(int id, byte[] secret) {
    /** Checks the id and the length, and copies the secret. */
    public Key {
      Keys.keyId(id);
      secret = Keys.key32("ticket key secret", secret);
    }

    @Override
    public byte[] secret() {
      return secret.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.id == id && Arrays.equals(k.secret, secret);
    }

    @Override
    public int hashCode() {
      return id * 31 + Arrays.hashCode(secret);
    }

    @Override
    public String toString() {
      return "TicketKeys.Key[id=" + id + "]"; // never the secret
    }
  }

  private final List<Key> keys;

  private TicketKeys(List<Key> keys) {
    this.keys = Collections.unmodifiableList(keys);
  }

  /**
   * Explicit keys.
   *
   * @param current the key that seals new tickets
   * @param previous keys that still open tickets sealed before a rotation
   * @throws IllegalArgumentException if two keys share an id
   */
  public static TicketKeys of(Key current, Key... previous) {
    List<Key> all = new ArrayList<>();
    all.add(current);
    all.addAll(Arrays.asList(previous));
    return new TicketKeys(checked(all));
  }

  /**
   * Keys derived from the server's static keys: for each,
   * {@code HKDF-Expand-Label(HKDF-Extract(0, private key), "tern ticket", key id, 32)} (RFC 8446
   * §7.1's Expand-Label, RFC 5869's Extract with a zero salt), under the same id. The first
   * server key's ticket key is the current one. A ticket key so derived is no weaker a secret than
   * the server key it comes from: whoever holds that key can already impersonate the server.
   *
   * @param serverKeys the server's static keys, the one it identifies with first
   * @throws IllegalArgumentException if there is none, or two share an id
   */
  public static TicketKeys derive(CryptoProvider provider, List<ServerStaticKey> serverKeys) {
    if (serverKeys.isEmpty()) {
      throw new IllegalArgumentException("no server static key to derive ticket keys from");
    }
    Hkdf hkdf = new Hkdf(provider);
    List<Key> all = new ArrayList<>();
    for (ServerStaticKey k : serverKeys) {
      byte[] prk = hkdf.extract(null, k.privateKey());
      all.add(new Key(k.keyId(), hkdf.expandLabel(prk, LABEL, new byte[] {(byte) k.keyId()},
          KEY_BYTES)));
      Arrays.fill(prk, (byte) 0);
    }
    return new TicketKeys(checked(all));
  }

  private static List<Key> checked(List<Key> all) {
    Set<Integer> ids = new HashSet<>();
    for (Key k : all) {
      if (k == null) {
        throw new IllegalArgumentException("a ticket key is null");
      }
      if (!ids.add(k.id())) {
        throw new IllegalArgumentException("two ticket keys share id " + k.id());
      }
    }
    return all;
  }

  /** The key that seals new tickets. */
  public Key current() {
    return keys.get(0);
  }

  /** Every key, the current one first. */
  public List<Key> all() {
    return keys;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TicketKeys t && t.keys.equals(keys);
  }

  @Override
  public int hashCode() {
    return keys.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("TicketKeys[current=").append(current().id());
    for (int i = 1; i < keys.size(); i++) {
      sb.append(i == 1 ? ", previous=" : ",").append(keys.get(i).id());
    }
    return sb.append(']').toString();
  }
}
