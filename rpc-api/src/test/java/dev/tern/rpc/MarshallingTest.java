package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.KnownLength;
import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.Test;

class MarshallingTest {
  /** Claims fewer bytes than it holds, as a stream whose length is only a lower bound may. */
  private static final class Understated extends ByteArrayInputStream implements KnownLength {
    private final int claimed;

    Understated(byte[] b, int claimed) {
      super(b);
      this.claimed = claimed;
    }

    @Override
    public synchronized int available() {
      return Math.min(claimed, super.available());
    }
  }

  @Test
  void knownLengthStreamsAreReadWhole() throws Exception {
    byte[] data = {1, 2, 3, 4, 5};
    assertThat(Marshalling.toBytes(new Understated(data, 5))).containsExactly(data);
  }

  @Test
  void anUnderstatedLengthStillYieldsEveryByte() throws Exception {
    byte[] data = {1, 2, 3, 4, 5, 6, 7};
    assertThat(Marshalling.toBytes(new Understated(data, 3))).containsExactly(data);
  }

  @Test
  void plainStreamsAreReadToTheEnd() throws Exception {
    assertThat(Marshalling.toBytes(new ByteArrayInputStream(new byte[] {9, 8}))).containsExactly(9, 8);
  }
}
