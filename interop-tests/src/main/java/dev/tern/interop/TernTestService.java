package dev.tern.interop;

import com.google.protobuf.ByteString;
import dev.tern.interop.testing.EchoStatus;
import dev.tern.interop.testing.Empty;
import dev.tern.interop.testing.Payload;
import dev.tern.interop.testing.ResponseParameters;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.interop.testing.StreamingInputCallRequest;
import dev.tern.interop.testing.StreamingInputCallResponse;
import dev.tern.interop.testing.StreamingOutputCallRequest;
import dev.tern.interop.testing.StreamingOutputCallResponse;
import dev.tern.interop.testing.TestServiceGrpc;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Tern's implementation of the interop {@code grpc.testing.TestService}, written on grpc-java's
 * public API only, so it runs on any Tern transport and on a stock grpc-java server alike.
 */
public final class TernTestService extends TestServiceGrpc.TestServiceImplBase {
  private static final ByteString ZEROS = ByteString.copyFrom(new byte[64 * 1024]);

  private final ScheduledExecutorService scheduler;

  /** A service that uses {@code scheduler} for responses with an {@code interval_us}. */
  public TernTestService(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
  }

  /** The service with the interop metadata rules ({@link InteropMetadata}) applied. */
  public static ServerServiceDefinition definition(ScheduledExecutorService scheduler) {
    return ServerInterceptors.intercept(new TernTestService(scheduler), new InteropMetadata());
  }

  @Override
  public void emptyCall(Empty request, StreamObserver<Empty> responseObserver) {
    responseObserver.onNext(Empty.getDefaultInstance());
    responseObserver.onCompleted();
  }

  @Override
  public void unaryCall(SimpleRequest request, StreamObserver<SimpleResponse> responseObserver) {
    ServerCallStreamObserver<SimpleResponse> call = (ServerCallStreamObserver<SimpleResponse>) responseObserver;
    if (request.hasExpectCompressed() && !compressionMatches(request.getExpectCompressed().getValue())) {
      call.onError(Status.INVALID_ARGUMENT.withDescription("expect_compressed="
          + request.getExpectCompressed().getValue() + " but the request encoding was " + requestEncoding())
          .asRuntimeException());
      return;
    }
    if (request.hasResponseCompressed()) {
      call.setCompression(request.getResponseCompressed().getValue() ? "gzip" : "identity");
    }
    if (request.hasResponseStatus() && request.getResponseStatus().getCode() != 0) {
      call.onError(toStatus(request.getResponseStatus()).asRuntimeException());
      return;
    }
    call.onNext(SimpleResponse.newBuilder().setPayload(zeros(request.getResponseSize())).build());
    call.onCompleted();
  }

  @Override
  public void cacheableUnaryCall(SimpleRequest request, StreamObserver<SimpleResponse> responseObserver) {
    unaryCall(request, responseObserver);
  }

  @Override
  public void streamingOutputCall(StreamingOutputCallRequest request,
      StreamObserver<StreamingOutputCallResponse> responseObserver) {
    ResponseStream out = new ResponseStream(responseObserver);
    out.enqueue(request);
    out.finish();
  }

  @Override
  public StreamObserver<StreamingInputCallRequest> streamingInputCall(
      StreamObserver<StreamingInputCallResponse> responseObserver) {
    return new StreamObserver<>() {
      private int total;
      private boolean failed;

      @Override
      public void onNext(StreamingInputCallRequest request) {
        if (failed) {
          return;
        }
        if (request.hasExpectCompressed() && !compressionMatches(request.getExpectCompressed().getValue())) {
          failed = true;
          responseObserver.onError(Status.INVALID_ARGUMENT.withDescription("expect_compressed="
              + request.getExpectCompressed().getValue() + " but the request encoding was " + requestEncoding())
              .asRuntimeException());
          return;
        }
        total += request.getPayload().getBody().size();
      }

      @Override
      public void onError(Throwable t) {
        failed = true;
      }

      @Override
      public void onCompleted() {
        if (!failed) {
          responseObserver.onNext(StreamingInputCallResponse.newBuilder().setAggregatedPayloadSize(total).build());
          responseObserver.onCompleted();
        }
      }
    };
  }

  @Override
  public StreamObserver<StreamingOutputCallRequest> fullDuplexCall(
      StreamObserver<StreamingOutputCallResponse> responseObserver) {
    ResponseStream out = new ResponseStream(responseObserver);
    return new StreamObserver<>() {
      @Override
      public void onNext(StreamingOutputCallRequest request) {
        out.enqueue(request);
      }

      @Override
      public void onError(Throwable t) {
        out.cancel();
      }

      @Override
      public void onCompleted() {
        out.finish();
      }
    };
  }

  @Override
  public StreamObserver<StreamingOutputCallRequest> halfDuplexCall(
      StreamObserver<StreamingOutputCallResponse> responseObserver) {
    ResponseStream out = new ResponseStream(responseObserver);
    List<StreamingOutputCallRequest> requests = new ArrayList<>();
    return new StreamObserver<>() {
      @Override
      public void onNext(StreamingOutputCallRequest request) {
        requests.add(request);
      }

      @Override
      public void onError(Throwable t) {
        out.cancel();
      }

      @Override
      public void onCompleted() {
        for (StreamingOutputCallRequest request : requests) {
          out.enqueue(request);
        }
        out.finish();
      }
    };
  }

  /**
   * Whether the request's encoding agrees with {@code expect_compressed}. A service sees a call's
   * {@code grpc-encoding}, not each message's compressed flag, so only "expected compressed but the
   * call is uncompressed" can be caught. Where the server does not show the header at all, the
   * encoding is unknown and the check is not made.
   */
  private static boolean compressionMatches(boolean expectCompressed) {
    String encoding = InteropMetadata.REQUEST_ENCODING.get();
    if (encoding == null || !expectCompressed) {
      return true;
    }
    return !encoding.equals("identity");
  }

  private static String requestEncoding() {
    String encoding = InteropMetadata.REQUEST_ENCODING.get();
    return encoding == null ? "unknown" : encoding;
  }

  static Payload zeros(int size) {
    if (size < 0) {
      throw Status.INVALID_ARGUMENT.withDescription("response size must be >= 0, was " + size).asRuntimeException();
    }
    ByteString body = ByteString.EMPTY;
    while (body.size() < size) {
      body = body.concat(ZEROS.substring(0, Math.min(ZEROS.size(), size - body.size())));
    }
    return Payload.newBuilder().setBody(body).build();
  }

  private static Status toStatus(EchoStatus echo) {
    return Status.fromCodeValue(echo.getCode()).withDescription(echo.getMessage());
  }

  /**
   * Sends the responses a stream of requests asks for, in order, waiting {@code interval_us}
   * before each where asked. All sending happens on one thread at a time (the caller's or the
   * scheduler's), serialised by this object's lock.
   */
  private final class ResponseStream {
    private final ServerCallStreamObserver<StreamingOutputCallResponse> call;
    private final List<Object> pending = new ArrayList<>(); // ResponseParameters or EchoStatus
    private boolean finished;
    private boolean closed;
    private boolean waiting;
    private boolean compressionChosen;

    ResponseStream(StreamObserver<StreamingOutputCallResponse> observer) {
      this.call = (ServerCallStreamObserver<StreamingOutputCallResponse>) observer;
      this.call.setOnCancelHandler(this::cancel);
    }

    synchronized void enqueue(StreamingOutputCallRequest request) {
      if (closed) {
        return;
      }
      if (!compressionChosen) {
        compressionChosen = true;
        for (ResponseParameters p : request.getResponseParametersList()) {
          if (p.hasCompressed() && p.getCompressed().getValue()) {
            call.setCompression("gzip");
            break;
          }
        }
      }
      pending.addAll(request.getResponseParametersList());
      if (request.hasResponseStatus() && request.getResponseStatus().getCode() != 0) {
        pending.add(request.getResponseStatus());
      }
      drain();
    }

    synchronized void finish() {
      finished = true;
      drain();
    }

    synchronized void cancel() {
      closed = true;
      pending.clear();
    }

    private void drain() {
      while (!closed && !waiting && !pending.isEmpty()) {
        Object next = pending.get(0);
        if (next instanceof EchoStatus) {
          closed = true;
          pending.clear();
          call.onError(toStatus((EchoStatus) next).asRuntimeException());
          return;
        }
        ResponseParameters params = (ResponseParameters) next;
        if (params.getIntervalUs() > 0) {
          waiting = true;
          scheduler.schedule(this::intervalPassed, params.getIntervalUs(), TimeUnit.MICROSECONDS);
          return;
        }
        pending.remove(0);
        send(params);
      }
      if (!closed && !waiting && finished && pending.isEmpty()) {
        closed = true;
        call.onCompleted();
      }
    }

    private synchronized void intervalPassed() {
      waiting = false;
      if (closed || pending.isEmpty()) {
        return;
      }
      send((ResponseParameters) pending.remove(0));
      drain();
    }

    private void send(ResponseParameters params) {
      if (call.isCancelled()) {
        closed = true;
        pending.clear();
        return;
      }
      call.setMessageCompression(!params.hasCompressed() || params.getCompressed().getValue());
      call.onNext(StreamingOutputCallResponse.newBuilder().setPayload(zeros(params.getSize())).build());
    }
  }
}
