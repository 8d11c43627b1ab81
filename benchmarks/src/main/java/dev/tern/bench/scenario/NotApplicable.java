package dev.tern.bench.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Why the scenarios this benchmark does not run yet give no figures with the transports present. */
final class NotApplicable {
  private NotApplicable() {}

  static Map<String, String> reasons(List<String> transports, List<String> variants) {
    boolean datagram = transports.contains("quic") || transports.contains("udp");
    Map<String, String> m = new LinkedHashMap<>();
    m.put("migration", datagram
        ? "not run: the client-address change is not implemented in this benchmark yet"
        : "not applicable to the transports present (" + variants + "): a TCP connection cannot survive an "
            + "address change, so every open call fails; there is nothing to compare it with");
    m.put("fallback", datagram
        ? "not run: blocking UDP on the emulated link is not implemented in this benchmark yet"
        : "not applicable to the transports present (" + variants + "): with no UDP transport there is nothing "
            + "to fall back from");
    m.put("scale", "not run: thousands of connections need more than this 2-core machine can give while "
        + "measuring; not implemented in this benchmark yet");
    return m;
  }
}
