package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Retry tokens (RFC 9000 §8.1.2): bound to the client's IP and the original connection ID, expiring, unforgeable. */
class RetryTokensTest {
  private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.7", 4433);
  private static final ByteBuf ODCID = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});

  private static ByteBuf mint(RetryTokens tokens, InetSocketAddress client, long now) {
    ByteBuf out = Unpooled.buffer(RetryTokens.maxTokenLength());
    assertThat(tokens.mint(out, ODCID, client, now)).isTrue();
    return out;
  }

  @Test
  void aTokenIsValidForItsClientWithinItsLifeAndCarriesTheOriginalConnectionId() {
    RetryTokens tokens = new RetryTokens(10_000);
    ByteBuf token = mint(tokens, CLIENT, 1000);
    int offset = tokens.validate(token, CLIENT, 1005);
    assertThat(offset).isPositive();
    assertThat(ByteBufUtilHex.hex(token.slice(offset, token.readableBytes() - offset))).isEqualTo("0102030405060708");
    // A NAT rebinding between the Retry and the next Initial changes only the port.
    assertThat(tokens.validate(token, new InetSocketAddress("127.0.0.7", 5555), 1005)).isPositive();
  }

  @Test
  void anExpiredForgedForeignOrMisdirectedTokenIsRefused() {
    RetryTokens tokens = new RetryTokens(10_000);
    ByteBuf token = mint(tokens, CLIENT, 1000);
    assertThat(tokens.validate(token, CLIENT, 1011)).as("expired").isEqualTo(-1);
    assertThat(tokens.validate(token, CLIENT, 990)).as("from the future").isEqualTo(-1);
    assertThat(tokens.validate(token, new InetSocketAddress("127.0.0.8", 4433), 1001)).as("another address")
        .isEqualTo(-1);
    assertThat(new RetryTokens(10_000).validate(token, CLIENT, 1001)).as("another server's key").isEqualTo(-1);
    ByteBuf forged = token.copy();
    forged.setByte(forged.writerIndex() - 1, forged.getByte(forged.writerIndex() - 1) ^ 1);
    assertThat(tokens.validate(forged, CLIENT, 1001)).as("original connection ID changed").isEqualTo(-1);
    assertThat(tokens.validate(Unpooled.wrappedBuffer(new byte[10]), CLIENT, 1001)).as("too short").isEqualTo(-1);
  }

  @Test
  void aConnectionIdLongerThanQuicV1AllowsGetsNoToken() {
    assertThat(new RetryTokens(10_000).mint(Unpooled.buffer(100), Unpooled.wrappedBuffer(new byte[21]), CLIENT, 1))
        .isFalse();
  }

  /** Hex of a buffer's readable bytes. */
  private static final class ByteBufUtilHex {
    static String hex(ByteBuf b) {
      return io.netty.buffer.ByteBufUtil.hexDump(b);
    }
  }
}
