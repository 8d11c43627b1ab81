package dev.tern.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class SvgCdfTest {
  @Test
  void drawsOneWellFormedLinePerVariantAndPanel() throws Exception {
    Map<String, Histogram> hs = new LinkedHashMap<>();
    for (String v : List.of("grpc-netty/cubic", "tcp/bbr")) {
      Histogram h = new Histogram(3_600_000_000L, 3);
      for (int i = 1; i <= 100; i++) {
        h.recordValue(200_000 + i * 1000L);
      }
      hs.put("mobile|unary seq|" + v, h);
      hs.put("mobile|feed api|" + v, h);
    }
    String svg = SvgCdf.render(hs, List.of("grpc-netty/cubic", "tcp/bbr"));
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(4);
    assertThat(svg).contains("mobile: unary seq").contains("mobile: feed api").contains("tcp/bbr");
  }
}
