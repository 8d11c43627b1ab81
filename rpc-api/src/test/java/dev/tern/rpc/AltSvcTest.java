package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The {@code alt-svc} field: RFC 7838 §3's grammar and examples, and input from a hostile peer. */
class AltSvcTest {
  @Test
  void theRfcExamplesParse() {
    // RFC 7838 §3's examples.
    AltSvc.Field h2 = AltSvc.parse("h2=\":8000\"");
    assertThat(h2.clear()).isFalse();
    assertThat(h2.alternatives()).containsExactly(
        new AltSvc.Alternative("h2", "", 8000, AltSvc.DEFAULT_MAX_AGE_SECONDS, false, Map.of()));
    AltSvc.Field two = AltSvc.parse("h2=\"new.example.org:80\", h2=\":443\"; ma=2592000; persist=1");
    assertThat(two.alternatives()).hasSize(2);
    assertThat(two.alternatives().get(0).host()).isEqualTo("new.example.org");
    assertThat(two.alternatives().get(0).sameHost()).isFalse();
    assertThat(two.alternatives().get(1)).isEqualTo(
        new AltSvc.Alternative("h2", "", 443, 2_592_000, true, Map.of()));
    // A percent-encoded protocol id (RFC 7838 §3: "w=x:y#z" is w%3Dx%3Ay#z).
    assertThat(AltSvc.parse("w%3Dx%3Ay#z=\":1\"").alternatives().get(0).protocolId()).isEqualTo("w=x:y#z");
    assertThat(AltSvc.parse("clear").clear()).isTrue();
    assertThat(AltSvc.parse("  clear ").clear()).isTrue();
  }

  @Test
  void whatTernSendsRoundTrips() {
    AltSvc.Alternative udp = new AltSvc.Alternative("tern-udp", "", 7443, 86_400, true,
        Map.of("key", "AbC-_09", "kid", "1", "v", "544e0002", "rpc", "2,1"));
    AltSvc.Alternative quic = new AltSvc.Alternative("h3", "", 443, 600, false, Map.of());
    String value = AltSvc.format(List.of(udp, quic));
    assertThat(value).startsWith("tern-udp=\":7443\"; ma=86400; persist=1; ").endsWith(", h3=\":443\"; ma=600");
    assertThat(value).contains("rpc=\"2,1\""); // a comma is not a token character: quoted
    assertThat(AltSvc.parse(value).alternatives()).containsExactly(udp, quic);
    assertThat(AltSvc.format(List.of())).isEqualTo("clear");
    AltSvc.Alternative odd = new AltSvc.Alternative("a=b,c", "::1", 1, 0, false, Map.of("x", "say \"hi\"\\"));
    assertThat(AltSvc.parse(AltSvc.format(List.of(odd))).alternatives()).containsExactly(odd);
  }

  @Test
  void emptyElementsWhitespaceAndUnknownParametersAreAccepted() {
    AltSvc.Field f = AltSvc.parse(" , h3=\":443\" ;MA=60 ; foo=\"bar\"\t,, h2=\":80\",");
    assertThat(f.alternatives()).hasSize(2);
    assertThat(f.alternatives().get(0).maxAgeSeconds()).isEqualTo(60);
    assertThat(f.alternatives().get(0).parameters()).containsEntry("foo", "bar");
    // An ma too large to hold is the largest one (RFC 9111 §1.2.2), never negative.
    assertThat(AltSvc.parse("h3=\":1\"; ma=99999999999999999999999").alternatives().get(0).maxAgeSeconds())
        .isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void malformedFieldsAreRefusedWholeWithWhereAndWhy() {
    for (String bad : new String[] {"", "h3", "h3=", "h3=:443", "h3=\":443", "h3=\"example.org\"",
        "h3=\":0\"", "h3=\":65536\"", "h3=\":-1\"", "h3=\":443\" junk", "h3=\":443\"; ma=-5",
        "h3=\":443\"; ma", "h3=\":443\"; =1", "h2=\":1\", h3=\":443\"; ma=1x", "h%4=\":1\"",
        "h3=\":44\u0001\"", "clear, h3=\":443\""}) {
      assertThatThrownBy(() -> AltSvc.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("alt-svc");
    }
  }

  @Test
  void aHugeOrCrowdedFieldIsRefused() {
    assertThatThrownBy(() -> AltSvc.parse("h3=\":1\"; x=\"" + "a".repeat(AltSvc.MAX_FIELD_CHARS) + "\""))
        .hasMessageContaining("characters");
    String seventeen = String.join(", ", java.util.Collections.nCopies(17, "h3=\":1\""));
    assertThatThrownBy(() -> AltSvc.parse(seventeen)).hasMessageContaining("more than 16");
  }

  /** Random bytes and mutations of a good field: each parses or throws IllegalArgumentException. */
  @Test
  void randomInputNeverThrowsAnythingElse() {
    Random r = new Random(7);
    String good = "tern-udp=\":7443\"; ma=86400; persist=1; key=abc; v=\"544e0002\", h3=\":443\"";
    for (int i = 0; i < 20_000; i++) {
      char[] c = good.toCharArray();
      for (int k = r.nextInt(4); k >= 0; k--) {
        c[r.nextInt(c.length)] = (char) (i % 3 == 0 ? r.nextInt(0x100) : " \",;=:%\\0a".charAt(r.nextInt(10)));
      }
      String input = r.nextInt(10) == 0 ? new String(c, 0, r.nextInt(c.length)) : new String(c);
      try {
        AltSvc.parse(input);
      } catch (IllegalArgumentException expected) {
        // refused: fine
      }
    }
  }
}
