package dev.tern.transport.udp.jmh;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.crypto.KeyLabels;
import dev.tern.transport.udp.crypto.OneRttPacketKeys;
import dev.tern.transport.udp.handshake.ClientHandshake;
import dev.tern.transport.udp.handshake.ClientHandshakeConfig;
import dev.tern.transport.udp.handshake.HandshakeContext;
import dev.tern.transport.udp.handshake.HandshakeException;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.ServerHandshake;
import dev.tern.transport.udp.handshake.ServerHandshakeConfig;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Packet protection (seal, protect, unprotect, open of a 1200-byte 1-RTT packet) and a whole
 * Noise IK handshake, per provider and AEAD. With {@code -prof gc} JMH reports the bytes
 * allocated per operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CryptoBenchmark {
  /** The provider. */
  @Param({"jdk", "bc"})
  public String provider;

  /** The AEAD. */
  @Param({"AES_128_GCM", "CHACHA20_POLY1305"})
  public String aead;

  private final ByteBuffer packet = ByteBuffer.allocate(1500);
  private final SecureRandom random = new SecureRandom();
  private CryptoProvider p;
  private OneRttPacketKeys client;
  private OneRttPacketKeys server;
  private long pn;
  private ClientHandshakeConfig clientConfig;
  private ServerHandshakeConfig serverConfig;
  private final HandshakeContext context = new HandshakeContext(0x544e0001, new byte[8],
      new byte[8]);

  /** Makes keys and handshake configurations. */
  @Setup
  public void setUp() {
    p = CryptoProviders.byName(provider);
    AeadAlgorithm a = AeadAlgorithm.valueOf(aead);
    byte[] c = new byte[32];
    byte[] s = new byte[32];
    random.nextBytes(c);
    random.nextBytes(s);
    client = new OneRttPacketKeys(p, a, KeyLabels.TERN_V1, s, c);
    server = new OneRttPacketKeys(p, a, KeyLabels.TERN_V1, c, s);
    AeadAlgorithm noise = a == AeadAlgorithm.AES_128_GCM ? AeadAlgorithm.AES_256_GCM : a;
    byte[] serverKey = p.x25519().generatePrivateKey(random);
    clientConfig = new ClientHandshakeConfig(p, noise,
        List.of(new PinnedServerKey(1, p.x25519().publicKey(serverKey))), null, random);
    serverConfig = new ServerHandshakeConfig(p, List.of(new ServerStaticKey(1, serverKey)),
        EnumSet.of(noise), null, null, random);
  }

  /** Seals, protects, unprotects and opens one 1200-byte packet. */
  @Benchmark
  public int packetRoundTrip() {
    packet.clear();
    packet.put((byte) 0x43).putLong(7L);
    int pnOffset = packet.position();
    packet.putInt((int) pn);
    packet.position(1200 - 16);
    client.seal(packet, 0, pnOffset + 4, pn);
    client.applyHeaderProtection(packet, 0, pnOffset);
    int end = packet.position();
    server.removeHeaderProtection(packet, 0, pnOffset, end);
    int r = server.open(packet, 0, pnOffset + 4, end, pn);
    pn++;
    return r;
  }

  /** A whole IK handshake, both sides. */
  @Benchmark
  public Object handshake() throws HandshakeException {
    ClientHandshake c = new ClientHandshake(clientConfig, context, null);
    ServerHandshake s = new ServerHandshake(serverConfig, context);
    ByteBuffer ch = ByteBuffer.allocate(1100);
    c.writeClientHello(new byte[40], ch);
    s.readClientHello(ch.flip());
    ByteBuffer sh = ByteBuffer.allocate(1100);
    s.writeServerHello(new byte[40], sh);
    c.readServerHello(sh.flip());
    return c.secrets();
  }
}
