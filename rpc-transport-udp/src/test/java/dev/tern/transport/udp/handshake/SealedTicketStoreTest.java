package dev.tern.transport.udp.handshake;

import static dev.tern.transport.udp.handshake.Peers.answer;
import static dev.tern.transport.udp.handshake.Peers.hello;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.TestProviders;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SealedTicketStoreTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final long DAY = 86_400_000L;

  private final AtomicLong clock = new AtomicLong(T0);

  private static TicketKeys.Key key(int id) {
    return new TicketKeys.Key(id, Peers.privateKey());
  }

  private SealedTicketStore.Builder store(CryptoProvider p, TicketKeys keys) {
    return SealedTicketStore.builder(p, keys).clock(clock::get);
  }

  private static CryptoProvider jdk() {
    return TestProviders.both().findFirst().orElseThrow();
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.crypto.TestProviders#both")
  void roundTripsEachCipher(CryptoProvider p) {
    for (AeadAlgorithm cipher : List.of(AeadAlgorithm.AES_256_GCM,
        AeadAlgorithm.CHACHA20_POLY1305)) {
      SealedTicketStore s = store(p, TicketKeys.of(key(7))).cipher(cipher).build();
      byte[] psk = Peers.privateKey();
      byte[] client = Peers.privateKey();
      byte[] id = s.issue(psk, client);
      assertThat(id).hasSize(SealedTicketStore.TICKET_ID_BYTES);
      assertThat(id[0]).isEqualTo((byte) 7);
      clock.addAndGet(1234);
      TicketStore.Stored t = s.find(id);
      assertThat(t.psk()).isEqualTo(psk);
      assertThat(t.clientStaticPublicKey()).isEqualTo(client);
      assertThat(t.issuedAtMillis()).isEqualTo(clock.get() - 1234);
      // Two tickets for the same PSK and client differ (random nonce) and neither shows the PSK.
      byte[] again = s.issue(psk, client);
      assertThat(again).isNotEqualTo(id);
      assertThat(TestProviders.hex(id)).doesNotContain(TestProviders.hex(psk));
    }
  }

  @Test
  void anyAlteredByteOrLengthIsNotFound() {
    SealedTicketStore s = store(jdk(), TicketKeys.of(key(1))).build();
    byte[] id = s.issue(new byte[32], new byte[32]);
    for (int i = 0; i < id.length; i++) {
      byte[] t = id.clone();
      t[i] ^= 1;
      assertThat(s.find(t)).as("byte %d", i).isNull();
      assertThat(s.consume(t)).isFalse();
    }
    assertThat(s.find(java.util.Arrays.copyOf(id, id.length - 1))).isNull();
    assertThat(s.find(java.util.Arrays.copyOf(id, id.length + 1))).isNull();
    assertThat(s.find(new byte[0])).isNull();
    assertThat(s.find(new byte[] {1})).isNull();
    assertThat(s.find(id)).isNotNull();
  }

  @Test
  void anotherKeyDoesNotOpenIt() {
    SealedTicketStore a = store(jdk(), TicketKeys.of(key(1))).build();
    SealedTicketStore b = store(jdk(), TicketKeys.of(key(1))).build();
    byte[] id = a.issue(new byte[32], new byte[32]);
    assertThat(b.find(id)).isNull();
    assertThat(b.consume(id)).isFalse();
    // Nor does the same key under another cipher.
    SealedTicketStore c = store(jdk(), a.keys()).cipher(AeadAlgorithm.CHACHA20_POLY1305).build();
    assertThat(c.find(id)).isNull();
  }

  @Test
  void rotationOpensTicketsOfThePreviousKeyAndIssuesUnderTheCurrent() {
    TicketKeys.Key old = key(1);
    TicketKeys.Key next = key(2);
    SealedTicketStore before = store(jdk(), TicketKeys.of(old)).build();
    byte[] oldTicket = before.issue(new byte[32], new byte[32]);
    SealedTicketStore after = store(jdk(), TicketKeys.of(next, old)).build();
    assertThat(after.find(oldTicket)).isNotNull();
    byte[] newTicket = after.issue(new byte[32], new byte[32]);
    assertThat(newTicket[0]).isEqualTo((byte) 2);
    assertThat(before.find(newTicket)).isNull();
    // Once the old key is dropped, its tickets are gone.
    assertThat(store(jdk(), TicketKeys.of(next)).build().find(oldTicket)).isNull();
    assertThatThrownBy(() -> TicketKeys.of(key(3), key(3)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("share id 3");
  }

  @Test
  void expiresAfterItsLifetime() {
    SealedTicketStore s = store(jdk(), TicketKeys.of(key(1))).build();
    assertThat(s.lifetimeMillis()).isEqualTo(SealedTicketStore.DEFAULT_LIFETIME_MILLIS)
        .isEqualTo(DAY);
    byte[] id = s.issue(new byte[32], new byte[32]);
    clock.addAndGet(DAY - 1);
    assertThat(s.find(id)).isNotNull();
    clock.addAndGet(1);
    assertThat(s.find(id)).isNull();
    assertThat(s.consume(id)).isFalse();
    assertThatThrownBy(() -> store(jdk(), TicketKeys.of(key(1))).lifetimeMillis(8 * DAY))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RFC 8446");
    assertThat(store(jdk(), TicketKeys.of(key(1))).lifetimeMillis(7 * DAY).build()
        .lifetimeMillis()).isEqualTo(SealedTicketStore.MAX_LIFETIME_MILLIS);
  }

  @Test
  void aTicketFromFarInTheFutureIsRefused() {
    TicketKeys keys = TicketKeys.of(key(1));
    SealedTicketStore s = store(jdk(), keys).build();
    clock.addAndGet(SealedTicketStore.MAX_CLOCK_SKEW_MILLIS + 1);
    byte[] id = s.issue(new byte[32], new byte[32]);
    AtomicLong behind = new AtomicLong(T0);
    SealedTicketStore lagging = SealedTicketStore.builder(jdk(), keys).clock(behind::get).build();
    assertThat(lagging.find(id)).isNull();
    behind.addAndGet(1);
    assertThat(lagging.find(id)).isNotNull();
  }

  @Test
  void consumeIsSingleUse() {
    SealedTicketStore s = store(jdk(), TicketKeys.of(key(1))).build();
    byte[] a = s.issue(new byte[32], new byte[32]);
    byte[] b = s.issue(new byte[32], new byte[32]);
    assertThat(s.consume(a)).isTrue();
    assertThat(s.consume(a)).isFalse();
    assertThat(s.consume(b)).isTrue();
    assertThat(s.consume(b)).isFalse();
    // find does not consume, and still finds a used ticket (the handshake consumes after find).
    assertThat(s.find(a)).isNotNull();
  }

  @Test
  void theStrikeRegisterIsBoundedRefusesWhenFullAndFreesExpiredEntries() {
    SealedTicketStore s = store(jdk(), TicketKeys.of(key(1))).maxUsedTickets(100)
        .lifetimeMillis(1000).build();
    List<byte[]> first = new java.util.ArrayList<>();
    for (int i = 0; i < 100; i++) {
      byte[] id = s.issue(new byte[32], new byte[32]);
      first.add(id);
      assertThat(s.consume(id)).isTrue();
    }
    int capacity = s.usedCapacity();
    assertThat(capacity).isLessThanOrEqualTo(256);
    // Full of live entries: a new ticket is refused, and the register does not grow.
    byte[] extra = s.issue(new byte[32], new byte[32]);
    for (int i = 0; i < 1000; i++) {
      assertThat(s.consume(extra)).isFalse();
    }
    assertThat(s.usedTickets()).isEqualTo(100);
    assertThat(s.usedCapacity()).isEqualTo(capacity);
    // Every used one is still refused.
    for (byte[] id : first) {
      assertThat(s.consume(id)).isFalse();
    }
    // Once the first ones expire, their room is reused.
    clock.addAndGet(500);
    byte[] later = s.issue(new byte[32], new byte[32]);
    assertThat(s.consume(later)).isFalse();
    clock.addAndGet(500);
    assertThat(s.consume(later)).isTrue();
    assertThat(s.usedTickets()).isEqualTo(1);
    assertThat(s.consume(later)).isFalse();
  }

  @Test
  void strikeRegisterGrowsOnlyToTwiceItsBound() {
    StrikeRegister r = new StrikeRegister(1000);
    Set<Long> seen = new HashSet<>();
    java.util.Random rnd = new java.util.Random(1);
    for (int i = 0; i < 1000; i++) {
      long h = rnd.nextLong();
      seen.add(h);
      assertThat(r.add(h, i, 10, 0)).isTrue();
    }
    assertThat(r.capacity()).isEqualTo(2048);
    assertThat(r.add(42, 42, 10, 0)).isFalse();
    assertThat(r.add(42, 42, 10, 10)).isTrue();
    assertThat(r.size()).isEqualTo(1);
    assertThat(seen).hasSize(1000);
  }

  @Test
  void freshnessWindowEdges() {
    SealedTicketStore s = store(jdk(), TicketKeys.of(key(1))).build();
    assertThat(s.freshnessWindowMillis()).isEqualTo(10_000);
    TicketStore.Stored t = s.find(s.issue(new byte[32], new byte[32]));
    clock.addAndGet(60_000);
    // The server's age is 60 s: a client age within 10 s of it is fresh.
    assertThat(s.earlyDataFresh(t, 60_000)).isTrue();
    assertThat(s.earlyDataFresh(t, 50_000)).isTrue();
    assertThat(s.earlyDataFresh(t, 70_000)).isTrue();
    assertThat(s.earlyDataFresh(t, 49_999)).isFalse();
    assertThat(s.earlyDataFresh(t, 70_001)).isFalse();
    assertThat(s.earlyDataFresh(t, -1)).isFalse();
    // A first flight captured now and replayed 10 s later is stale.
    clock.addAndGet(10_001);
    assertThat(s.earlyDataFresh(t, 60_000)).isFalse();
    // Configurable, and past the lifetime never fresh.
    SealedTicketStore tight = store(jdk(), s.keys()).freshnessWindowMillis(0).build();
    assertThat(tight.earlyDataFresh(t, 70_001)).isTrue();
    assertThat(tight.earlyDataFresh(t, 70_000)).isFalse();
    clock.set(t.issuedAtMillis() + DAY);
    assertThat(s.earlyDataFresh(t, DAY)).isFalse();
    assertThat(s.earlyDataFresh(null, 0)).isFalse();
  }

  @Test
  void instancesDerivingFromOneServerKeyShareTicketsButNotUsage() {
    ServerStaticKey serverKey = new ServerStaticKey(4, Peers.privateKey());
    TicketKeys keysA = TicketKeys.derive(jdk(), List.of(serverKey));
    TicketKeys keysB = TicketKeys.derive(TestProviders.both().skip(1).findFirst().orElseThrow(),
        List.of(new ServerStaticKey(4, serverKey.privateKey())));
    assertThat(keysA).isEqualTo(keysB);
    assertThat(keysA.current().id()).isEqualTo(4);
    assertThat(keysA.current().secret()).isNotEqualTo(serverKey.privateKey());
    assertThat(TicketKeys.derive(jdk(), List.of(new ServerStaticKey(4, Peers.privateKey()))))
        .isNotEqualTo(keysA);

    SealedTicketStore a = store(jdk(), keysA).build();
    SealedTicketStore b = store(jdk(), keysB).build();
    byte[] psk = Peers.privateKey();
    byte[] id = a.issue(psk, new byte[32]);
    assertThat(b.find(id).psk()).isEqualTo(psk);
    // Each instance has its own strike register: across instances the freshness window is the
    // bound (RFC 8446 §8.3).
    assertThat(a.consume(id)).isTrue();
    assertThat(b.consume(id)).isTrue();
    assertThat(b.consume(id)).isFalse();
  }

  @Test
  void derivationIsPinnedByAVector() {
    // HKDF-Expand-Label(HKDF-Extract(0^32, 0x01^32), "tern ticket", 0x01, 32): a change to the
    // derivation would orphan every ticket a deployed fleet issued.
    byte[] ones = new byte[32];
    java.util.Arrays.fill(ones, (byte) 1);
    for (CryptoProvider p : TestProviders.both().toList()) {
      TicketKeys k = TicketKeys.derive(p, List.of(new ServerStaticKey(1, ones)));
      assertThat(TestProviders.hex(k.current().secret())).isEqualTo(DERIVED_VECTOR);
    }
  }

  // Checked independently of this code with Python's hmac module (RFC 5869 by hand).
  static final String DERIVED_VECTOR =
      "c27dc0e09e5d0b7e65a77258459f03cbdce3d197e59e58f62d344b86aa185c2b";

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void aTicketIssuedByOneInstanceResumesOnAnotherOnceEach(CryptoProvider p, AeadAlgorithm cipher)
      throws Exception {
    ServerStaticKey serverKey = new ServerStaticKey(1, Peers.privateKey());
    Peers.Server a = new Peers.Server(p, cipher, serverKey);
    SealedTicketStore storeA = store(p, TicketKeys.derive(p, List.of(serverKey))).build();
    SealedTicketStore storeB = store(p, TicketKeys.derive(p, List.of(serverKey))).build();
    ClientHandshakeConfig config = Peers.client(p, cipher, null, a.pin(0));
    ClientHandshake first = new ClientHandshake(config, Peers.CONTEXT, null);
    ServerHandshake firstServer = a.handshake();
    first.readServerHello(ByteBuffer.wrap(answer(firstServer, hello(first))));
    byte[] nonce = {3};
    byte[] id = storeA.issue(firstServer.secrets().ticketPsk(nonce),
        firstServer.clientStaticKey());
    ResumptionTicket ticket = new ResumptionTicket(id, first.secrets().ticketPsk(nonce),
        first.staticPrivateKey());

    ServerHandshakeConfig onB = new ServerHandshakeConfig(p, List.of(serverKey), Set.of(cipher),
        null, storeB, Peers.RANDOM);
    byte[] ch = hello(new ClientHandshake(config, Peers.CONTEXT, ticket));
    ServerHandshake resumedOnB = new ServerHandshake(onB, Peers.CONTEXT);
    resumedOnB.readClientHello(ByteBuffer.wrap(ch));
    assertThat(resumedOnB.resumed()).isTrue();
    assertThat(resumedOnB.ticketReused()).isFalse();
    // The same ClientHello replayed to B finds the ticket in B's strike register: the handshake
    // goes on in 1-RTT, and its early data is refused.
    ServerHandshake replayedOnB = new ServerHandshake(onB, Peers.CONTEXT);
    replayedOnB.readClientHello(ByteBuffer.wrap(ch));
    assertThat(replayedOnB.ticketReused()).isTrue();
    // A ticket under a key B does not hold is an unknown ticket.
    SealedTicketStore stranger = store(p, TicketKeys.of(key(1))).build();
    byte[] foreign = stranger.issue(firstServer.secrets().ticketPsk(nonce),
        firstServer.clientStaticKey());
    byte[] ch2 = hello(new ClientHandshake(config, Peers.CONTEXT,
        new ResumptionTicket(foreign, first.secrets().ticketPsk(nonce),
            first.staticPrivateKey())));
    assertThatThrownBy(() -> new ServerHandshake(onB, Peers.CONTEXT)
        .readClientHello(ByteBuffer.wrap(ch2)))
        .isInstanceOf(HandshakeException.class)
        .hasMessageContaining("unknown or expired");
  }
}
