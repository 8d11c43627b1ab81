package dev.tern.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void writesNumbersWithoutLosingTrailingZerosOfIntegers() {
    assertThat(Json.write(120000.0).trim()).isEqualTo("120000");
    assertThat(Json.write(1.5).trim()).isEqualTo("1.5");
    assertThat(Json.write(Double.NaN).trim()).isEqualTo("null");
  }

  @Test
  void escapesStringsAndNestsContainers() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("a\"b", List.of(1, "x\ny"));
    assertThat(Json.write(m)).isEqualTo("{\n  \"a\\\"b\": [1, \"x\\ny\"]\n}\n");
  }
}
