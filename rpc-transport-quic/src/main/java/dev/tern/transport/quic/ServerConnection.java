package dev.tern.transport.quic;

import dev.tern.rpc.spi.ServerTransportListener;
import io.grpc.Status;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http3.Http3SettingsFrame;
import io.netty.handler.codec.http3.Http3ServerConnectionHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;

/** The server's state for one QUIC connection; confined to the connection's event loop. */
final class ServerConnection {
  private final QuicServerTransport transport;
  private final QuicChannel channel;
  private final Set<QuicServerStream> streams = new LinkedHashSet<>();
  private volatile int version;
  private volatile boolean earlyData;

  ServerConnection(QuicServerTransport transport, QuicChannel channel) {
    this.transport = transport;
    this.channel = channel;
  }

  /** Installs HTTP/3 and this connection's handlers on the QUIC channel. */
  void install() {
    // A ChannelInitializer per stream: the handler Netty gets is @Sharable, each stream gets its own
    // QuicServerStream (a shared stateful handler would stall the second connection).
    ChannelHandler requestStreams = new ChannelInitializer<QuicStreamChannel>() {
      @Override
      protected void initChannel(QuicStreamChannel ch) {
        ch.config().setAutoRead(false);
        ch.pipeline().addLast(new QuicServerStream(ServerConnection.this));
      }
    };
    channel.pipeline().addLast(new Http3ServerConnectionHandler(requestStreams, new ControlFrames(), null,
        LocalSettings.frame(transport.versionBits(), transport.options()), true, LocalSettings.VALIDATOR));
    channel.pipeline().addLast(new ConnectionEvents());
  }

  QuicChannel channel() { return channel; }

  int version() { return version; }

  boolean earlyData() { return earlyData; }

  int maxInboundMessageBytes() { return transport.maxInboundMessageBytes(); }

  ServerTransportListener transportListener() { return transport.listener(); }

  boolean acceptsStreams() { return !transport.isShutdown(); }

  void streamOpened(QuicServerStream s) {
    if (s.receivedAsEarlyData()) {
      earlyData = true;
    }
    streams.add(s);
  }

  void streamClosed(QuicServerStream s) {
    streams.remove(s);
    if (streams.isEmpty() && transport.isShutdown()) {
      close();
    }
  }

  boolean idle() {
    return streams.isEmpty();
  }

  /** Closes the connection (H3_NO_ERROR); open streams end with UNAVAILABLE. */
  void close() {
    if (channel.isOpen()) {
      channel.close(true, (int) StreamHandler.H3_NO_ERROR, io.netty.buffer.Unpooled.EMPTY_BUFFER);
    }
  }

  /** Cancels every stream with {@code status}, then closes. */
  void closeNow(Status status) {
    for (QuicServerStream s : new ArrayList<>(streams)) {
      s.resetStream(StreamHandler.H3_REQUEST_CANCELLED);
      s.end(status);
    }
    close();
  }

  private final class ControlFrames extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Http3SettingsFrame) {
          Long bits = ((Http3SettingsFrame) msg).settings().get(TernVersions.SETTING_ID);
          version = TernVersions.highestCommon(transport.versionBits(), bits == null ? TernVersions.PLAIN_GRPC : bits);
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }
  }

  private final class ConnectionEvents extends ChannelInboundHandlerAdapter {
    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      for (QuicServerStream s : new ArrayList<>(streams)) {
        s.end(Status.UNAVAILABLE.withDescription("QUIC connection closed"));
      }
      streams.clear();
      transport.connectionClosed(ServerConnection.this);
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // A connection-level error (an HTTP/3 protocol violation): Netty closes the connection.
    }
  }
}
