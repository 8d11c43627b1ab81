package dev.tern.transport.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Drainable;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The marshaller grpc-java streams every message of Tern's tcp and okhttp transports through. grpc-java
 * streams the same message once per attempt (a transparent retry, a retry policy, hedging), so each
 * stream must carry the whole message.
 */
class ByteBufferMarshallerTest {
  private static byte[] drained(InputStream in) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ((Drainable) in).drainTo(out);
    return out.toByteArray();
  }

  @Test
  void everyAttemptStreamsTheWholeMessage() throws Exception {
    ByteBuffer message = ByteBuffer.wrap("a request replayed by a retry".getBytes(StandardCharsets.UTF_8));
    byte[] first = drained(ByteBufferMarshaller.INSTANCE.stream(message));
    byte[] second = drained(ByteBufferMarshaller.INSTANCE.stream(message));
    assertThat(new String(first, StandardCharsets.UTF_8)).isEqualTo("a request replayed by a retry");
    assertThat(second).isEqualTo(first);
    assertThat(message.position()).as("the message itself is left as it was").isZero();
  }

  @Test
  void readingByteByByteAlsoLeavesTheMessage() throws Exception {
    ByteBuffer message = ByteBuffer.wrap(new byte[] {1, 2, 3});
    InputStream in = ByteBufferMarshaller.INSTANCE.stream(message);
    assertThat(in.read()).isEqualTo(1);
    assertThat(in.readAllBytes()).containsExactly(2, 3);
    assertThat(ByteBufferMarshaller.INSTANCE.stream(message).readAllBytes()).containsExactly(1, 2, 3);
  }
}
