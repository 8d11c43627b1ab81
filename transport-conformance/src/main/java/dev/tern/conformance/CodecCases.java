package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.TransportOptions;
import io.grpc.CallOptions;
import io.grpc.Codec;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Cases on message encodings beyond gzip: transports compress and decompress with the registries
 * they are given ({@link TransportOptions#COMPRESSOR_REGISTRY}, {@link
 * TransportOptions#DECOMPRESSOR_REGISTRY}; the builders pass theirs), as grpc-java does.
 */
public abstract class CodecCases extends EndToEndStatusCases {
  /** The suite's own encoding's name. */
  protected static final String ENCODING = "x-conformance-xor";

  /** Counts its use; XORs every byte with 0x5a, so a message that skipped it arrives garbled. */
  protected static final class XorCodec implements Codec {
    /** Streams compressed with this codec. */
    public final AtomicInteger compressed = new AtomicInteger();
    /** Streams decompressed with this codec. */
    public final AtomicInteger decompressed = new AtomicInteger();

    @Override
    public String getMessageEncoding() {
      return ENCODING;
    }

    @Override
    public OutputStream compress(OutputStream os) {
      compressed.incrementAndGet();
      return new FilterOutputStream(os) {
        @Override
        public void write(int b) throws IOException {
          out.write(b ^ 0x5a);
        }
      };
    }

    @Override
    public InputStream decompress(InputStream is) {
      decompressed.incrementAndGet();
      return new FilterInputStream(is) {
        @Override
        public int read() throws IOException {
          int b = in.read();
          return b < 0 ? b : (b ^ 0x5a);
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
          int n = in.read(buf, off, len);
          for (int i = 0; i < n; i++) {
            buf[off + i] ^= 0x5a;
          }
          return n;
        }
      };
    }
  }

  private static CompressorRegistry compressors(XorCodec codec) {
    CompressorRegistry r = CompressorRegistry.newEmptyInstance();
    r.register(new Codec.Gzip());
    r.register(codec);
    return r;
  }

  private static DecompressorRegistry decompressors(XorCodec codec) {
    return DecompressorRegistry.getDefaultInstance().with(codec, true);
  }

  private static TransportOptions withCodec(TransportOptions o, XorCodec codec) {
    return o.with(TransportOptions.COMPRESSOR_REGISTRY, compressors(codec))
        .with(TransportOptions.DECOMPRESSOR_REGISTRY, decompressors(codec));
  }

  /** Case: a custom codec from the registries compresses requests and responses both ways. */
  @Test
  protected void customCodecFromTheRegistriesCarriesBothDirections() throws Exception {
    XorCodec clientCodec = new XorCodec();
    XorCodec serverCodec = new XorCodec();
    Started server = startServer(withCodec(serverOptions(), serverCodec));
    Connected client = connect(server.address(), withCodec(clientOptions(), clientCodec));
    await(client.recorder.ready, "transportReady");
    Call call = newCall(client, headers("Xor", server).messageEncoding(ENCODING)
        .acceptedMessageEncodings(List.of(ENCODING, "gzip", "identity")).build());
    call.stream.request(1);
    call.stream.writeMessage(pattern(3000, 1));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    assertThat(s.headers.messageEncoding()).isEqualTo(ENCODING);
    assertThat(s.headers.acceptedMessageEncodings()).as("grpc-accept-encoding").contains(ENCODING);
    s.stream.request(1);
    ByteBuffer in = s.nextMessage(timeout());
    assertThat(in).as("the request").isNotNull();
    assertThat(in.equals(pattern(3000, 1))).as("request intact through the codec").isTrue();
    s.stream.setMessageCompression(ENCODING);
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(pattern(2000, 2));
    s.stream.close(Status.OK, new Metadata());
    ByteBuffer out = call.recorder.nextMessage(timeout());
    assertThat(out).as("the response").isNotNull();
    assertThat(out.equals(pattern(2000, 2))).as("response intact through the codec").isTrue();
    assertThat(await(call.recorder.closed, "onClose").status.getCode()).isEqualTo(Status.Code.OK);
    assertThat(clientCodec.compressed.get()).as("client compressions").isPositive();
    assertThat(serverCodec.decompressed.get()).as("server decompressions").isPositive();
    assertThat(serverCodec.compressed.get()).as("server compressions").isPositive();
    assertThat(clientCodec.decompressed.get()).as("client decompressions").isPositive();
  }

  /**
   * Case: end to end, the builders' registries reach the transport: the request goes out in the
   * codec, the client advertises it ({@code grpc-accept-encoding}) and the server's
   * {@code setCompression} answers in it.
   */
  @Test
  protected void endToEndCustomCodecFromTheBuildersRegistries() throws Exception {
    XorCodec clientCodec = new XorCodec();
    XorCodec serverCodec = new XorCodec();
    Server server = track(configureServer(dev.tern.rpc.TernServerBuilder.create().addTransportProvider(provider)
        .listen(provider.name(), newServerAddress())
        .addService(io.grpc.ServerInterceptors.intercept(new StringService().definition(), new io.grpc.ServerInterceptor() {
          @Override
          public <Q, R> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, R> call, Metadata headers,
              io.grpc.ServerCallHandler<Q, R> next) {
            call.setCompression(ENCODING);
            return next.startCall(call, headers);
          }
        }))
        .compressorRegistry(compressors(serverCodec)).decompressorRegistry(decompressors(serverCodec)))
        .build().start());
    java.net.SocketAddress address = server.getListenSockets().get(0);
    ManagedChannel channel = track(configureChannel(dev.tern.rpc.TernChannelBuilder.forAddress(address)
        .addTransportProvider(provider).transports(provider.name()).overrideAuthority(authorityFor(address))
        .compressorRegistry(compressors(clientCodec)).decompressorRegistry(decompressors(clientCodec))).build());
    assertThat(StringService.call(channel, StringService.ECHO, CallOptions.DEFAULT.withCompression(ENCODING),
        "x".repeat(5000), timeout().toMillis())).isEqualTo("x".repeat(5000));
    assertThat(clientCodec.compressed.get()).as("client compressions").isPositive();
    assertThat(serverCodec.decompressed.get()).as("server decompressions").isPositive();
    assertThat(serverCodec.compressed.get()).as("server compressions (the client advertised the codec)").isPositive();
    assertThat(clientCodec.decompressed.get()).as("client decompressions").isPositive();
  }
}
