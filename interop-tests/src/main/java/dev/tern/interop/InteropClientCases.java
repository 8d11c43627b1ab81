package dev.tern.interop;

import com.google.protobuf.ByteString;
import dev.tern.interop.testing.BoolValue;
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
import dev.tern.interop.testing.UnimplementedServiceGrpc;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The client side of the interop cases, as the gRPC interop specification describes them. Each
 * case throws {@link AssertionError} (or a {@link StatusRuntimeException}) when the server does
 * not behave as specified.
 */
public final class InteropClientCases {
  private static final long CALL_TIMEOUT_SECONDS = 20;
  private static final String SPECIAL_MESSAGE =
      "\t\ntest with whitespace\r\nand Unicode BMP \u263A and non-BMP \uD83D\uDE08\t\n";

  private final Channel channel;

  /** Cases over {@code channel}. */
  public InteropClientCases(Channel channel) {
    this.channel = channel;
  }

  private TestServiceGrpc.TestServiceBlockingStub blocking() {
    return TestServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private TestServiceGrpc.TestServiceStub async() {
    return TestServiceGrpc.newStub(channel).withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  /** Runs one case. */
  public void run(InteropCase testCase) throws Exception {
    switch (testCase) {
      case EMPTY_UNARY: emptyUnary(); break;
      case LARGE_UNARY: largeUnary(); break;
      case CLIENT_COMPRESSED_UNARY: clientCompressedUnary(true); break;
      case CLIENT_COMPRESSED_UNARY_NOPROBE: clientCompressedUnary(false); break;
      case SERVER_COMPRESSED_UNARY: serverCompressedUnary(); break;
      case CLIENT_STREAMING: clientStreaming(); break;
      case CLIENT_COMPRESSED_STREAMING: clientCompressedStreaming(true); break;
      case CLIENT_COMPRESSED_STREAMING_NOPROBE: clientCompressedStreaming(false); break;
      case SERVER_STREAMING: serverStreaming(false); break;
      case SERVER_COMPRESSED_STREAMING: serverStreaming(true); break;
      case PING_PONG: pingPong(); break;
      case EMPTY_STREAM: emptyStream(); break;
      case CUSTOM_METADATA: customMetadata(); break;
      case STATUS_CODE_AND_MESSAGE: statusCodeAndMessage("test status message"); break;
      case SPECIAL_STATUS_MESSAGE: statusCodeAndMessage(SPECIAL_MESSAGE); break;
      case UNIMPLEMENTED_METHOD: unimplementedMethod(); break;
      case UNIMPLEMENTED_SERVICE: unimplementedService(); break;
      case CANCEL_AFTER_BEGIN: cancelAfterBegin(); break;
      case CANCEL_AFTER_FIRST_RESPONSE: cancelAfterFirstResponse(); break;
      case TIMEOUT_ON_SLEEPING_SERVER: timeoutOnSleepingServer(); break;
      default: throw new IllegalArgumentException("testCase: " + testCase);
    }
  }

  private void emptyUnary() {
    check(Empty.getDefaultInstance().equals(blocking().emptyCall(Empty.getDefaultInstance())), "empty response");
  }

  private static SimpleRequest largeRequest() {
    return SimpleRequest.newBuilder().setResponseSize(314159).setPayload(zeros(271828)).build();
  }

  private static void checkZeros(Payload payload, int size) {
    check(payload.getBody().size() == size, "payload of " + size + " bytes, got " + payload.getBody().size());
    check(payload.getBody().equals(ByteString.copyFrom(new byte[size])), "payload of zeros");
  }

  private void largeUnary() {
    checkZeros(blocking().unaryCall(largeRequest()).getPayload(), 314159);
  }

  /**
   * {@code probe} also checks that the server refuses an uncompressed request that claims to be
   * compressed (servers that cannot see the request encoding, like grpc-java's, fail that probe).
   */
  private void clientCompressedUnary(boolean probe) {
    SimpleRequest compressed = largeRequest().toBuilder().setExpectCompressed(bool(true)).build();
    SimpleRequest uncompressed = largeRequest().toBuilder().setExpectCompressed(bool(false)).build();
    if (probe) {
      expectStatus(() -> blocking().unaryCall(compressed), Status.Code.INVALID_ARGUMENT, null);
    }
    checkZeros(blocking().withCompression("gzip").unaryCall(compressed).getPayload(), 314159);
    checkZeros(blocking().unaryCall(uncompressed).getPayload(), 314159);
  }

  private void serverCompressedUnary() {
    for (boolean compress : new boolean[] {true, false}) {
      SimpleRequest request = largeRequest().toBuilder().setResponseCompressed(bool(compress)).build();
      checkZeros(blocking().unaryCall(request).getPayload(), 314159);
    }
  }

  private void clientStreaming() throws Exception {
    StreamRecorder<StreamingInputCallResponse> recorder = new StreamRecorder<>();
    StreamObserver<StreamingInputCallRequest> requests = async().streamingInputCall(recorder);
    for (int size : new int[] {27182, 8, 1828, 45904}) {
      requests.onNext(StreamingInputCallRequest.newBuilder().setPayload(zeros(size)).build());
    }
    requests.onCompleted();
    List<StreamingInputCallResponse> responses = recorder.awaitSuccess();
    check(responses.size() == 1 && responses.get(0).getAggregatedPayloadSize() == 74922,
        "aggregated size 74922, got " + responses);
  }

  private void clientCompressedStreaming(boolean probe) throws Exception {
    StreamingInputCallRequest compressed = StreamingInputCallRequest.newBuilder()
        .setExpectCompressed(bool(true)).setPayload(zeros(27182)).build();
    StreamingInputCallRequest uncompressed = StreamingInputCallRequest.newBuilder()
        .setExpectCompressed(bool(false)).setPayload(zeros(45904)).build();
    if (probe) {
      StreamRecorder<StreamingInputCallResponse> probeRecorder = new StreamRecorder<>();
      StreamObserver<StreamingInputCallRequest> requests = async().streamingInputCall(probeRecorder);
      requests.onNext(compressed);
      Status status = probeRecorder.awaitFailure();
      check(status.getCode() == Status.Code.INVALID_ARGUMENT, "INVALID_ARGUMENT for the probe, got " + status);
      requests.onCompleted();
    }
    StreamRecorder<StreamingInputCallResponse> recorder = new StreamRecorder<>();
    ClientCallStreamObserver<StreamingInputCallRequest> requests = (ClientCallStreamObserver<StreamingInputCallRequest>)
        async().withCompression("gzip").streamingInputCall(recorder);
    requests.setMessageCompression(true);
    requests.onNext(compressed);
    requests.setMessageCompression(false);
    requests.onNext(uncompressed);
    requests.onCompleted();
    List<StreamingInputCallResponse> responses = recorder.awaitSuccess();
    check(responses.size() == 1 && responses.get(0).getAggregatedPayloadSize() == 73086,
        "aggregated size 73086, got " + responses);
  }

  private void serverStreaming(boolean compressed) throws Exception {
    int[] sizes = compressed ? new int[] {31415, 92653} : new int[] {31415, 9, 2653, 58979};
    StreamingOutputCallRequest.Builder request = StreamingOutputCallRequest.newBuilder();
    for (int i = 0; i < sizes.length; i++) {
      ResponseParameters.Builder params = ResponseParameters.newBuilder().setSize(sizes[i]);
      if (compressed) {
        params.setCompressed(bool(i == 0));
      }
      request.addResponseParameters(params);
    }
    StreamRecorder<StreamingOutputCallResponse> recorder = new StreamRecorder<>();
    async().streamingOutputCall(request.build(), recorder);
    List<StreamingOutputCallResponse> responses = recorder.awaitSuccess();
    check(responses.size() == sizes.length, sizes.length + " responses, got " + responses.size());
    for (int i = 0; i < sizes.length; i++) {
      checkZeros(responses.get(i).getPayload(), sizes[i]);
    }
  }

  private void pingPong() throws Exception {
    int[] requestSizes = {27182, 8, 1828, 45904};
    int[] responseSizes = {31415, 9, 2653, 58979};
    StreamRecorder<StreamingOutputCallResponse> recorder = new StreamRecorder<>();
    StreamObserver<StreamingOutputCallRequest> requests = async().fullDuplexCall(recorder);
    for (int i = 0; i < requestSizes.length; i++) {
      requests.onNext(StreamingOutputCallRequest.newBuilder()
          .addResponseParameters(ResponseParameters.newBuilder().setSize(responseSizes[i]))
          .setPayload(zeros(requestSizes[i])).build());
      StreamingOutputCallResponse response = recorder.awaitMessage(i);
      checkZeros(response.getPayload(), responseSizes[i]);
    }
    requests.onCompleted();
    check(recorder.awaitSuccess().size() == requestSizes.length, "one response per request");
  }

  private void emptyStream() throws Exception {
    StreamRecorder<StreamingOutputCallResponse> recorder = new StreamRecorder<>();
    async().fullDuplexCall(recorder).onCompleted();
    check(recorder.awaitSuccess().isEmpty(), "no responses");
  }

  private void customMetadata() throws Exception {
    Metadata metadata = new Metadata();
    metadata.put(InteropMetadata.ECHO_INITIAL, "test_initial_metadata_value");
    metadata.put(InteropMetadata.ECHO_TRAILING, new byte[] {(byte) 0xab, (byte) 0xab, (byte) 0xab});

    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    Channel echoing = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(metadata),
        MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    SimpleResponse unary = TestServiceGrpc.newBlockingStub(echoing)
        .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS).unaryCall(largeRequest());
    checkZeros(unary.getPayload(), 314159);
    checkEchoed(metadata, headers.get(), trailers.get());

    headers.set(null);
    trailers.set(null);
    StreamRecorder<StreamingOutputCallResponse> recorder = new StreamRecorder<>();
    StreamObserver<StreamingOutputCallRequest> requests = TestServiceGrpc.newStub(echoing)
        .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS).fullDuplexCall(recorder);
    requests.onNext(StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(314159))
        .setPayload(zeros(271828)).build());
    requests.onCompleted();
    List<StreamingOutputCallResponse> responses = recorder.awaitSuccess();
    check(responses.size() == 1, "one response");
    checkZeros(responses.get(0).getPayload(), 314159);
    checkEchoed(metadata, headers.get(), trailers.get());
  }

  private static void checkEchoed(Metadata sent, Metadata headers, Metadata trailers) {
    check(headers != null && sent.get(InteropMetadata.ECHO_INITIAL).equals(headers.get(InteropMetadata.ECHO_INITIAL)),
        "x-grpc-test-echo-initial echoed in the headers, got " + headers);
    check(trailers != null && java.util.Arrays.equals(sent.get(InteropMetadata.ECHO_TRAILING),
        trailers.get(InteropMetadata.ECHO_TRAILING)), "x-grpc-test-echo-trailing-bin echoed in the trailers, got "
        + trailers);
  }

  private void statusCodeAndMessage(String message) throws Exception {
    EchoStatus echo = EchoStatus.newBuilder().setCode(2).setMessage(message).build();
    expectStatus(() -> blocking().unaryCall(SimpleRequest.newBuilder().setResponseStatus(echo).build()),
        Status.Code.UNKNOWN, message);
    StreamRecorder<StreamingOutputCallResponse> recorder = new StreamRecorder<>();
    StreamObserver<StreamingOutputCallRequest> requests = async().fullDuplexCall(recorder);
    requests.onNext(StreamingOutputCallRequest.newBuilder().setResponseStatus(echo).build());
    requests.onCompleted();
    Status status = recorder.awaitFailure();
    check(status.getCode() == Status.Code.UNKNOWN && message.equals(status.getDescription()),
        "UNKNOWN with message '" + message + "', got " + status);
  }

  private void unimplementedMethod() {
    expectStatus(() -> blocking().unimplementedCall(Empty.getDefaultInstance()), Status.Code.UNIMPLEMENTED, null);
  }

  private void unimplementedService() {
    expectStatus(() -> UnimplementedServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .unimplementedCall(Empty.getDefaultInstance()), Status.Code.UNIMPLEMENTED, null);
  }

  private void cancelAfterBegin() throws Exception {
    StreamRecorder<StreamingInputCallResponse> recorder = new StreamRecorder<>();
    ClientCallStreamObserver<StreamingInputCallRequest> requests =
        (ClientCallStreamObserver<StreamingInputCallRequest>) async().streamingInputCall(recorder);
    requests.cancel("cancelled by the interop client", null);
    Status status = recorder.awaitFailure();
    check(status.getCode() == Status.Code.CANCELLED, "CANCELLED, got " + status);
  }

  private void cancelAfterFirstResponse() throws Exception {
    StreamRecorder<StreamingOutputCallResponse> recorder = new StreamRecorder<>();
    ClientCallStreamObserver<StreamingOutputCallRequest> requests =
        (ClientCallStreamObserver<StreamingOutputCallRequest>) async().fullDuplexCall(recorder);
    requests.onNext(StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(31415))
        .setPayload(zeros(27182)).build());
    checkZeros(recorder.awaitMessage(0).getPayload(), 31415);
    requests.cancel("cancelled by the interop client", null);
    Status status = recorder.awaitFailure();
    check(status.getCode() == Status.Code.CANCELLED, "CANCELLED, got " + status);
  }

  private void timeoutOnSleepingServer() throws Exception {
    StreamRecorder<StreamingOutputCallResponse> recorder = new StreamRecorder<>();
    StreamObserver<StreamingOutputCallRequest> requests = TestServiceGrpc.newStub(channel)
        .withDeadlineAfter(1, TimeUnit.MILLISECONDS).fullDuplexCall(recorder);
    try {
      requests.onNext(StreamingOutputCallRequest.newBuilder().setPayload(zeros(27182)).build());
    } catch (IllegalStateException callAlreadyClosed) {
      // The deadline may pass before the first message is written; that is the case's point.
    }
    Status status = recorder.awaitFailure();
    check(status.getCode() == Status.Code.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED, got " + status);
  }

  private static void expectStatus(Runnable call, Status.Code code, String description) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      check(e.getStatus().getCode() == code, code + " expected, got " + e.getStatus());
      if (description != null) {
        check(description.equals(e.getStatus().getDescription()),
            "description '" + description + "' expected, got '" + e.getStatus().getDescription() + "'");
      }
      return;
    }
    throw new AssertionError(code + " expected, but the call succeeded");
  }

  private static Payload zeros(int size) {
    return Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])).build();
  }

  private static BoolValue bool(boolean value) {
    return BoolValue.newBuilder().setValue(value).build();
  }

  private static void check(boolean condition, String expectation) {
    if (!condition) {
      throw new AssertionError("expected " + expectation);
    }
  }
}
