package dev.tern.transport.udp.handshake;

import static dev.tern.transport.udp.crypto.TestProviders.hex;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.TestProviders;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Noise HandshakeState/SymmetricState/CipherState against the published cacophony test
 * vectors for Noise_{IK,IKpsk2,XX}_25519_{ChaChaPoly,AESGCM}_SHA256 (test resource
 * cacophony-subset.txt), with both providers: every handshake message byte for byte, the
 * handshake hash, and the transport messages after Split().
 */
class NoiseVectorsTest {

  /** One vector: its fields and its messages as {payload, ciphertext}. */
  record Vector(Map<String, String> fields, List<String[]> messages) {
    String name() {
      return fields.get("protocol_name");
    }

    byte[] bytes(String key) {
      String v = fields.get(key);
      return v == null ? null : hex(v);
    }

    @Override
    public String toString() {
      return name();
    }
  }

  static List<Vector> vectors() throws IOException {
    List<Vector> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        NoiseVectorsTest.class.getResourceAsStream("cacophony-subset.txt"),
        StandardCharsets.US_ASCII))) {
      Map<String, String> fields = new HashMap<>();
      List<String[]> messages = new ArrayList<>();
      for (String line; (line = r.readLine()) != null; ) {
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        if (line.equals("end")) {
          out.add(new Vector(fields, messages));
          fields = new HashMap<>();
          messages = new ArrayList<>();
          continue;
        }
        String[] parts = line.split(" ");
        if (parts[0].equals("msg")) {
          messages.add(new String[] {parts[1].equals("-") ? "" : parts[1], parts[2]});
        } else {
          fields.put(parts[0], parts[1]);
        }
      }
    }
    return out;
  }

  static Stream<Arguments> cases() throws IOException {
    List<Vector> vs = vectors();
    assertThat(vs).hasSize(6);
    return TestProviders.both().flatMap(p -> vs.stream().map(v -> Arguments.of(p, v)));
  }

  private static HandshakeState side(CryptoProvider p, Vector v, boolean initiator) {
    String[] name = v.name().split("_");
    String prefix = initiator ? "init_" : "resp_";
    String psks = v.fields().get(prefix + "psks");
    return new HandshakeState(p, HandshakePattern.ofNoiseName(name[1]),
        AeadAlgorithm.ofNoiseName(name[3]), initiator, v.bytes(prefix + "prologue"),
        v.bytes(prefix + "static"), v.bytes(prefix + "remote_static"),
        psks == null ? null : hex(psks), v.bytes(prefix + "ephemeral"), null);
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void reproducesThePublishedVector(CryptoProvider provider, Vector v) throws Exception {
    HandshakeState init = side(provider, v, true);
    HandshakeState resp = side(provider, v, false);
    CipherState[] initCs = null;
    CipherState[] respCs = null;
    for (int i = 0; i < v.messages().size(); i++) {
      byte[] payload = hex(v.messages().get(i)[0]);
      byte[] expected = hex(v.messages().get(i)[1]);
      boolean fromInitiator = i % 2 == 0;
      if (!init.isFinished()) {
        HandshakeState writer = fromInitiator ? init : resp;
        HandshakeState reader = fromInitiator ? resp : init;
        ByteBuffer msg = ByteBuffer.allocate(1024);
        writer.writeMessage(payload, msg);
        msg.flip();
        byte[] written = new byte[msg.remaining()];
        msg.duplicate().get(written);
        assertThat(hex(written)).as("%s message %d", v.name(), i).isEqualTo(hex(expected));
        assertThat(reader.readMessage(msg)).isEqualTo(payload);
        if (init.isFinished()) {
          assertThat(resp.isFinished()).isTrue();
          assertThat(hex(init.handshakeHash())).isEqualTo(v.fields().get("handshake_hash"));
          assertThat(resp.handshakeHash()).isEqualTo(init.handshakeHash());
          initCs = init.split();
          respCs = resp.split();
        }
      } else {
        // Transport messages: initiator sends with c1, responder with c2 (Noise §5.2 Split).
        CipherState send = fromInitiator ? initCs[0] : respCs[1];
        CipherState recv = fromInitiator ? respCs[0] : initCs[1];
        byte[] ct = new byte[payload.length + 16];
        send.encryptWithAd(new byte[0], payload, 0, payload.length, ct, 0);
        assertThat(hex(ct)).as("%s transport message %d", v.name(), i).isEqualTo(hex(expected));
        byte[] pt = new byte[ct.length];
        int n = recv.decryptWithAd(new byte[0], ct, 0, ct.length, pt, 0);
        assertThat(java.util.Arrays.copyOf(pt, n)).isEqualTo(payload);
      }
    }
    assertThat(initCs).as("the vector's handshake finished").isNotNull();
  }
}
