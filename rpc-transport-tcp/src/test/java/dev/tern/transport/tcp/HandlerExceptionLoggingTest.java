package dev.tern.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server handler that throws is logged once, with its stack trace, as grpc-java's server logs it
 * (SEVERE, through its serializing executor), and the client gets UNKNOWN; the server goes on
 * serving.
 */
@Timeout(60)
class HandlerExceptionLoggingTest {
  private static final MethodDescriptor.Marshaller<String> UTF8 = dev.tern.conformance.Utf8.MARSHALLER;
  private static final MethodDescriptor<String, String> THROWS = method("test.Throwing/Throws");
  private static final MethodDescriptor<String, String> START_THROWS = method("test.Throwing/StartThrows");
  private static final MethodDescriptor<String, String> FINE = method("test.Throwing/Fine");

  private final List<LogRecord> records = new ArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord r) {
      synchronized (records) {
        records.add(r);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  private static MethodDescriptor<String, String> method(String name) {
    return MethodDescriptor.<String, String>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(name).setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();
  }

  @BeforeEach
  void captureLogs() {
    capture.setLevel(Level.ALL);
    Logger.getLogger("").addHandler(capture);
  }

  @AfterEach
  void stopCapturing() {
    Logger.getLogger("").removeHandler(capture);
  }

  @Test
  void aHandlerThatThrowsIsLoggedOnceWithItsStackTraceAndTheClientGetsUnknown() throws Exception {
    IllegalStateException thrown = new IllegalStateException("the handler broke");
    IllegalArgumentException thrownAtStart = new IllegalArgumentException("the interceptor broke");
    ServerInterceptor failingAtStart = new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
          ServerCallHandler<ReqT, RespT> next) {
        if (call.getMethodDescriptor().getFullMethodName().equals(START_THROWS.getFullMethodName())) {
          throw thrownAtStart;
        }
        return next.startCall(call, headers);
      }
    };
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Throwing")
        .addMethod(THROWS, ServerCalls.asyncUnaryCall((request, response) -> {
          throw thrown;
        }))
        .addMethod(START_THROWS, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext("unreached");
          response.onCompleted();
        }))
        .addMethod(FINE, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(request);
          response.onCompleted();
        }))
        .build();
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerInterceptors.intercept(service, failingAtStart)).build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).transports("tcp")
        .usePlaintext().build();
    try {
      assertThat(failure(channel, THROWS).getCode()).isEqualTo(Status.Code.UNKNOWN);
      assertThat(failure(channel, START_THROWS).getCode()).isEqualTo(Status.Code.UNKNOWN);
      assertThat(ClientCalls.blockingUnaryCall(channel, FINE, options(), "still serving")).isEqualTo("still serving");
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    LogRecord inHandler = onlyRecordOf(thrown);
    assertThat(inHandler.getLevel()).isEqualTo(Level.SEVERE);
    assertThat(inHandler.getLoggerName()).isEqualTo("dev.tern.rpc.TernServer");
    assertThat(inHandler.getMessage()).contains("test.Throwing/Throws").contains("onHalfClose");
    assertThat(inHandler.getThrown().getStackTrace()).as("the stack trace travels with the record").isNotEmpty();

    LogRecord atStart = onlyRecordOf(thrownAtStart);
    assertThat(atStart.getLevel()).isEqualTo(Level.SEVERE);
    assertThat(atStart.getMessage()).contains("test.Throwing/StartThrows").contains("startCall");
  }

  /** The one record carrying {@code e} (as itself or as a cause); fails on none or several. */
  private LogRecord onlyRecordOf(Throwable e) {
    List<LogRecord> matching = new ArrayList<>();
    synchronized (records) {
      for (LogRecord r : records) {
        for (Throwable t = r.getThrown(); t != null; t = t.getCause() == t ? null : t.getCause()) {
          if (t == e) {
            matching.add(r);
            break;
          }
        }
      }
    }
    assertThat(matching).as("records carrying %s", e).hasSize(1);
    return matching.get(0);
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private static Status failure(ManagedChannel channel, MethodDescriptor<String, String> method) {
    try {
      String answer = ClientCalls.blockingUnaryCall(channel, method, options(), "hi");
      throw new AssertionError("expected a failure, got " + answer);
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }
}
