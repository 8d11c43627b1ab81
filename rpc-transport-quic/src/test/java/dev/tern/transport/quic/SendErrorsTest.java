package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.net.NoRouteToHostException;
import org.junit.jupiter.api.Test;

/** {@link SendErrors} counts the sends the socket refused and names them. */
class SendErrorsTest {
  /** Stands for the socket: refuses writes while {@code refusing}. */
  private static final class Socket extends ChannelOutboundHandlerAdapter {
    boolean refusing;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      ReferenceCountUtil.release(msg);
      if (refusing) {
        promise.setFailure(new NoRouteToHostException("Network is unreachable"));
      } else {
        promise.setSuccess();
      }
    }
  }

  @Test
  void refusedSendsAreCountedAndNamedAndAnAcceptedOneEndsTheStreak() {
    Socket socket = new Socket();
    SendErrors errors = new SendErrors();
    EmbeddedChannel ch = new EmbeddedChannel(socket, errors);
    assertThat(errors.describe()).isEmpty();

    ch.writeAndFlush(Unpooled.buffer(8).writeLong(1));
    socket.refusing = true;
    ch.writeAndFlush(Unpooled.buffer(8).writeLong(2));
    ch.writeAndFlush(Unpooled.buffer(8).writeLong(3));

    assertThat(errors.sent()).isEqualTo(1);
    assertThat(errors.failed()).isEqualTo(2);
    assertThat(errors.last()).isInstanceOf(NoRouteToHostException.class);
    assertThat(errors.describe()).contains("2 UDP sends refused by the kernel (all of the last ")
        .contains("Network is unreachable");
    assertThat(errors.failingForMillis(System.nanoTime() + 5_000_000_000L)).isGreaterThanOrEqualTo(5000);

    socket.refusing = false;
    ch.writeAndFlush(Unpooled.buffer(8).writeLong(4));
    assertThat(errors.failingForMillis(System.nanoTime())).isZero();
    assertThat(errors.describe()).startsWith("; 2 UDP sends refused by the kernel, the last: ");
    assertThat(errors.failed()).isEqualTo(2);
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }
}
