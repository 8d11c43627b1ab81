package dev.tern.bench.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Why the scenarios this benchmark does not run yet give no figures with the transports present. */
final class NotApplicable {
  private NotApplicable() {}

  static Map<String, String> reasons(List<String> transports, List<String> variants, List<String> scenarios) {
    Map<String, String> m = new LinkedHashMap<>();
    if (!scenarios.contains("migration")) {
      m.put("migration", "not run in this invocation (add it with --scenarios ...,migration)");
    }
    m.put("fallback", "not run: falling back from a blocked UDP transport to TCP needs transport negotiation "
        + "(the client choosing among transports at connect time), which does not exist yet");
    if (!scenarios.contains("scale")) {
      m.put("scale", "not run in this invocation (add it with --scenarios ...,scale)");
    }
    return m;
  }
}
