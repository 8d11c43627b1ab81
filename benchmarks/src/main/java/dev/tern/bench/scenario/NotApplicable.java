package dev.tern.bench.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Why scenarios of DESIGN.md give no figures in this invocation. */
final class NotApplicable {
  private NotApplicable() {}

  static Map<String, String> reasons(List<String> transports, List<String> variants, List<String> scenarios) {
    Map<String, String> m = new LinkedHashMap<>();
    if (!scenarios.contains("migration")) {
      m.put("migration", "not run in this invocation (add it with --scenarios ...,migration)");
    }
    if (!scenarios.contains("fallback")) {
      m.put("fallback", "not run in this invocation (add it with --scenarios ...,fallback)");
    }
    if (variants.contains(dev.tern.bench.stack.AutoStack.NAME)) {
      m.put("auto", "Tern with no transport named: runs only " + Variant.AUTO_SCENARIOS
          + " (first contact with UDP blocked); its other cells are empty by design");
    }
    if (!scenarios.contains("scale")) {
      m.put("scale", "not run in this invocation (add it with --scenarios ...,scale)");
    }
    return m;
  }
}
