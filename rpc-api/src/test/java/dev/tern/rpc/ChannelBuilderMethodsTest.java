package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.BinaryLog;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.Codec;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * grpc-java's channel-builder methods do on a Tern channel what they do on a grpc-java one, shown
 * over the in-process transport where the behaviour does not depend on the transport (the rows of
 * docs/builder-methods.md name these tests).
 */
@Timeout(30)
class ChannelBuilderMethodsTest {
  private static final Metadata.Key<String> USER_AGENT = Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> BIG = Metadata.Key.of("big", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> MARK = Metadata.Key.of("mark", Metadata.ASCII_STRING_MARSHALLER);

  private final InProcessAddress address = new InProcessAddress("channel-builder-" + UUID.randomUUID());
  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<ExecutorService> pools = new ArrayList<>();
  private final CompletableFuture<Metadata> serverHeaders = new CompletableFuture<>();
  private final CompletableFuture<String> serverAuthority = new CompletableFuture<>();

  @AfterEach
  void tearDown() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    pools.forEach(ExecutorService::shutdownNow);
  }

  /** A server on {@link #address} that records the request headers and authority of each call. */
  private void startServer(TernServerBuilder b) throws IOException {
    ServerInterceptor capture = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        serverHeaders.complete(headers);
        serverAuthority.complete(call.getAuthority());
        return next.startCall(call, headers);
      }
    };
    servers.add(b.listen("inprocess", address).addService(TestMethods.service()).intercept(capture).build().start());
  }

  private void startServer() throws IOException {
    startServer(TernServerBuilder.create());
  }

  private TernChannelBuilder channelBuilder() {
    return TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext();
  }

  private ManagedChannel track(ManagedChannel c) {
    channels.add(c);
    return c;
  }

  private static String unary(Channel channel, String request) {
    return ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, request);
  }

  private static Status statusOf(Runnable call) {
    try {
      call.run();
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  /** The thread the response's listener ran on, for a unary call on {@code channel}. */
  private static String listenerThread(Channel channel) throws Exception {
    CompletableFuture<String> thread = new CompletableFuture<>();
    ClientCalls.asyncUnaryCall(channel.newCall(TestMethods.UNARY, CallOptions.DEFAULT), "hi",
        new StreamObserver<String>() {
          @Override public void onNext(String value) { thread.complete(Thread.currentThread().getName()); }

          @Override public void onError(Throwable t) { thread.completeExceptionally(t); }

          @Override public void onCompleted() {}
        });
    return thread.get(10, TimeUnit.SECONDS);
  }

  @Test
  void userAgentReachesTheServersUserAgentHeader() throws Exception {
    startServer();
    ManagedChannel channel = track(channelBuilder().userAgent("feed-app/2.1").build());

    assertThat(unary(channel, "hi")).isEqualTo("hi");

    assertThat(serverHeaders.get(5, TimeUnit.SECONDS).get(USER_AGENT)).as("the user agent, then the transport's")
        .isEqualTo("feed-app/2.1 tern-inprocess");
  }

  @Test
  void overrideAuthorityIsTheAuthorityTheServerSees() throws Exception {
    startServer();
    ManagedChannel channel = track(channelBuilder().overrideAuthority("api.example.com:443").build());

    assertThat(unary(channel, "hi")).isEqualTo("hi");

    assertThat(serverAuthority.get(5, TimeUnit.SECONDS)).isEqualTo("api.example.com:443");
  }

  @Test
  void executorRunsTheCallsListeners() throws Exception {
    startServer();
    AtomicInteger ran = new AtomicInteger();
    ExecutorService pool = Executors.newCachedThreadPool(r -> new Thread(r, "app-listeners"));
    pools.add(pool);
    ManagedChannel channel = track(channelBuilder().executor(task -> {
      ran.incrementAndGet();
      pool.execute(task);
    }).build());

    assertThat(listenerThread(channel)).isEqualTo("app-listeners");
    assertThat(ran.get()).as("tasks given to the executor").isPositive();
  }

  @Test
  void directExecutorRunsListenersOnTheTransportsThread() throws Exception {
    startServer();
    ManagedChannel direct = track(channelBuilder().directExecutor().build());
    ManagedChannel pooled = track(channelBuilder().build());

    assertThat(listenerThread(direct)).as("the in-process transport's thread").startsWith("tern-inprocess-");
    assertThat(listenerThread(pooled)).as("without directExecutor, the channel's own pool")
        .startsWith("tern-channel-executor");
  }

  /** An interceptor that appends {@code name} to {@code order} when a call starts through it. */
  private static ClientInterceptor named(String name, List<String> order) {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        order.add(name);
        return next.newCall(method, options);
      }
    };
  }

  @Test
  void interceptorsFromAListAndFromVarargsRunLastAddedFirst() throws Exception {
    startServer();
    List<String> order = new CopyOnWriteArrayList<>();
    ManagedChannel channel = track(channelBuilder()
        .intercept(List.of(named("a", order), named("b", order)))
        .intercept(named("c", order), named("d", order)).build());

    assertThat(unary(channel, "hi")).isEqualTo("hi");

    assertThat(order).containsExactly("d", "c", "b", "a");
  }

  @Test
  void interceptWithTargetAsksTheFactoryWithTheTargetAndKeepsItsPlace() throws Exception {
    startServer();
    List<String> order = new CopyOnWriteArrayList<>();
    List<String> targets = new CopyOnWriteArrayList<>();
    TernChannelBuilder b = channelBuilder().intercept(named("first", order));
    interceptWithTarget(b, target -> {
      targets.add(target);
      return named("from-factory", order);
    });
    ManagedChannel channel = track(b.intercept(named("last", order)).build());

    assertThat(unary(channel, "hi")).isEqualTo("hi");

    assertThat(order).containsExactly("last", "from-factory", "first");
    assertThat(targets).as("asked once, at build(), with the address channel's authority")
        .containsExactly(address.toString());

    TernChannelBuilder forTarget = TernChannelBuilder.forTarget("api.example.com:443");
    interceptWithTarget(forTarget, target -> {
      targets.add(target);
      return named("unused", order);
    });
    track(forTarget.build());
    assertThat(targets).as("a forTarget channel's factory gets the target").endsWith("api.example.com:443");

    TernChannelBuilder returnsNull = channelBuilder();
    interceptWithTarget(returnsNull, target -> null);
    assertThatThrownBy(returnsNull::build).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("interceptWithTarget").hasMessageContaining("returned no interceptor");
  }

  /**
   * Calls the protected {@code interceptWithTarget} as grpc-java's libraries do, with a factory
   * answering as {@code factory}: its parameter type, {@code ManagedChannelBuilder.InterceptorFactory},
   * is protected, so only reflection reaches it from here.
   */
  private static void interceptWithTarget(TernChannelBuilder b, Function<String, ClientInterceptor> factory)
      throws Exception {
    Class<?> type = Class.forName("io.grpc.ManagedChannelBuilder$InterceptorFactory");
    Object proxy = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (self, m, args) -> {
      switch (m.getName()) {
        case "newInterceptor":
          return factory.apply((String) args[0]);
        case "toString":
          return "test factory";
        case "hashCode":
          return System.identityHashCode(self);
        case "equals":
          return self == args[0];
        default:
          throw new UnsupportedOperationException(m.toString());
      }
    });
    Method method = TernChannelBuilder.class.getDeclaredMethod("interceptWithTarget", type);
    method.setAccessible(true);
    method.invoke(b, proxy);
  }

  @Test
  void maxInboundMessageSizeFailsALargerResponse() throws Exception {
    startServer();
    ManagedChannel channel = track(channelBuilder().maxInboundMessageSize(5_000).build());

    assertThat(unary(channel, "x".repeat(4_000))).hasSize(4_000);
    Status tooLarge = statusOf(() -> unary(channel, "x".repeat(6_000)));

    assertThat(tooLarge.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(tooLarge.getDescription()).contains("5000");
  }

  @Test
  void maxInboundMetadataSizeFailsLargerResponseHeaders() throws Exception {
    // The server answers with a header of the size the request names.
    ServerInterceptor bigHeaders = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        int size = Integer.parseInt(headers.get(BIG));
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<Q, R>(call) {
          @Override
          public void sendHeaders(Metadata responseHeaders) {
            responseHeaders.put(BIG, "h".repeat(size));
            super.sendHeaders(responseHeaders);
          }
        }, headers);
      }
    };
    startServer(TernServerBuilder.create().intercept(bigHeaders));
    ManagedChannel channel = track(channelBuilder().maxInboundMetadataSize(2_000).build());

    assertThat(unary(withHeader(channel, BIG, "1000"), "hi")).as("1,000 bytes fit in 2,000").isEqualTo("hi");
    Status tooLarge = statusOf(() -> unary(withHeader(channel, BIG, "3000"), "hi"));

    assertThat(tooLarge.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(tooLarge.getDescription()).contains("response headers").contains("maxInboundMetadataSize of 2000");
    assertThat(unary(withHeader(channel, BIG, "10"), "again")).as("the channel carries on").isEqualTo("again");
  }

  static Channel withHeader(Channel channel, Metadata.Key<String> key, String value) {
    return ClientInterceptors.intercept(channel, new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            headers.put(key, value);
            super.start(listener, headers);
          }
        };
      }
    });
  }

  /** A codec that flips every bit, counting what it encodes and decodes: proof it was used. */
  static final class FlipCodec implements Codec {
    final AtomicInteger compressed = new AtomicInteger();
    final AtomicInteger decompressed = new AtomicInteger();

    @Override
    public String getMessageEncoding() {
      return "x-flip";
    }

    @Override
    public OutputStream compress(OutputStream os) {
      compressed.incrementAndGet();
      return new FilterOutputStream(os) {
        @Override
        public void write(int b) throws IOException {
          out.write(~b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          for (int i = 0; i < len; i++) {
            out.write(~b[off + i]);
          }
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
          return b < 0 ? b : ~b & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          int n = in.read(b, off, len);
          for (int i = 0; i < n; i++) {
            b[off + i] = (byte) ~b[off + i];
          }
          return n;
        }
      };
    }
  }

  @Test
  void theChannelsCompressorAndDecompressorRegistriesCarryACodecOfTheirOwn() throws Exception {
    FlipCodec clientCodec = new FlipCodec();
    FlipCodec serverCodec = new FlipCodec();
    ServerInterceptor compressResponses = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        call.setCompression("x-flip");
        return next.startCall(call, headers);
      }
    };
    startServer(TernServerBuilder.create().intercept(compressResponses)
        .compressorRegistry(registryWith(serverCodec))
        .decompressorRegistry(DecompressorRegistry.getDefaultInstance().with(serverCodec, true)));
    ManagedChannel channel = track(channelBuilder().compressorRegistry(registryWith(clientCodec))
        .decompressorRegistry(DecompressorRegistry.getDefaultInstance().with(clientCodec, true)).build());

    String reply = ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withCompression("x-flip"), "flipped both ways");

    assertThat(reply).isEqualTo("flipped both ways");
    assertThat(clientCodec.compressed.get()).as("the request compressed by the channel's registry").isPositive();
    assertThat(serverCodec.decompressed.get()).as("and decompressed by the server's").isPositive();
    assertThat(serverCodec.compressed.get()).as("the response compressed by the server's registry").isPositive();
    assertThat(clientCodec.decompressed.get()).as("and decompressed by the channel's").isPositive();

    ManagedChannel withoutCodec = track(channelBuilder().build());
    Status unknown = statusOf(() -> ClientCalls.blockingUnaryCall(withoutCodec, TestMethods.UNARY,
        CallOptions.DEFAULT.withCompression("x-flip"), "x"));
    assertThat(unknown.getCode()).as("a channel whose registry lacks the codec cannot compress with it")
        .isEqualTo(Status.Code.INTERNAL);
  }

  private static CompressorRegistry registryWith(Codec codec) {
    CompressorRegistry registry = CompressorRegistry.newEmptyInstance();
    registry.register(codec);
    return registry;
  }

  @Test
  void usePlaintextAndUseTransportSecurityDecideWhatTheTransportIsGiven() throws Exception {
    startServer();
    OptionsCapturingProvider capture = new OptionsCapturingProvider("capture", false);
    ManagedChannel plaintext = track(TernChannelBuilder.forAddress(address).addTransportProvider(capture)
        .transports("capture").usePlaintext().build());
    assertThat(unary(plaintext, "hi")).isEqualTo("hi");
    assertThat(capture.clientOptions.poll(5, TimeUnit.SECONDS).get(TransportOptions.TLS)).as("plaintext: no TLS")
        .isNull();

    ManagedChannel secured = track(TernChannelBuilder.forAddress(address).addTransportProvider(capture)
        .transports("capture").usePlaintext().useTransportSecurity().build());
    assertThat(unary(secured, "hi")).isEqualTo("hi");
    assertThat(capture.clientOptions.poll(5, TimeUnit.SECONDS).get(TransportOptions.TLS))
        .as("useTransportSecurity() after usePlaintext(): TLS again").isNotNull();

    OptionsCapturingProvider alwaysTls = new OptionsCapturingProvider("always-tls", true);
    assertThatThrownBy(() -> TernChannelBuilder.forAddress(address).addTransportProvider(alwaysTls)
        .transports("always-tls").usePlaintext().build())
        .as("a transport that always encrypts, named on a plaintext channel").isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs TLS");
    assertThat(TernChannelBuilder.forAddress(address).addTransportProvider(alwaysTls).transports("always-tls")
        .usePlaintext().useTransportSecurity().build().shutdownNow()).as("the same with TLS back on builds").isNotNull();
  }

  @Test
  void keepAliveSettingsReachTheTransport() throws Exception {
    startServer();
    OptionsCapturingProvider capture = new OptionsCapturingProvider("capture", false);
    ManagedChannel channel = track(TernChannelBuilder.forAddress(address).addTransportProvider(capture)
        .transports("capture").usePlaintext().keepAliveTime(7, TimeUnit.SECONDS)
        .keepAliveTimeout(3, TimeUnit.SECONDS).keepAliveWithoutCalls(true).build());

    assertThat(unary(channel, "hi")).isEqualTo("hi");

    TransportOptions given = capture.clientOptions.poll(5, TimeUnit.SECONDS);
    assertThat(given.get(TransportOptions.KEEP_ALIVE_MILLIS)).isEqualTo(7_000L);
    assertThat(given.get(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS)).isEqualTo(3_000L);
    assertThat(given.get(TransportOptions.KEEP_ALIVE_WITHOUT_CALLS)).isTrue();
    TransportOptions defaults = TransportOptions.defaults();
    assertThat(defaults.get(TransportOptions.KEEP_ALIVE_WITHOUT_CALLS)).as("off unless asked, as grpc-java").isFalse();
  }

  @Test
  void setBinaryLogSeesEveryCallInsideTheInterceptors() throws Exception {
    startServer();
    List<String> logged = new CopyOnWriteArrayList<>();
    BinaryLog log = new BinaryLog() {
      @Override
      public <Q, R> ServerMethodDefinition<?, ?> wrapMethodDefinition(ServerMethodDefinition<Q, R> def) {
        return def;
      }

      @Override
      public Channel wrapChannel(Channel channel) {
        return ClientInterceptors.intercept(channel, new ClientInterceptor() {
          @Override
          public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options,
              Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
              @Override
              public void start(Listener<R> listener, Metadata headers) {
                logged.add(method.getFullMethodName() + " mark=" + headers.get(MARK));
                super.start(listener, headers);
              }
            };
          }
        });
      }

      @Override
      public void close() {}
    };
    ClientInterceptor marks = new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            headers.put(MARK, "set by the application's interceptor");
            super.start(listener, headers);
          }
        };
      }
    };
    ManagedChannel channel = track(channelBuilder().intercept(marks).setBinaryLog(log).build());

    assertThat(unary(channel, "one")).isEqualTo("one");
    assertThat(unary(channel, "two")).isEqualTo("two");

    assertThat(logged).as("each call, with what the interceptor added").containsExactly(
        "test.Echo/Unary mark=set by the application's interceptor",
        "test.Echo/Unary mark=set by the application's interceptor");
    ManagedChannel unlogged = track(channelBuilder().intercept(marks).setBinaryLog(log).setBinaryLog(null).build());
    assertThat(unary(unlogged, "three")).isEqualTo("three");
    assertThat(logged).as("setBinaryLog(null) removes it").hasSize(2);
  }
}
