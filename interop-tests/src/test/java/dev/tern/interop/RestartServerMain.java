package dev.tern.interop;

import dev.tern.conformance.Utf8;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HexFormat;

/**
 * The server {@link ServerRestartTest} kills and starts again: a Tern server on 127.0.0.1 at a
 * fixed port with one transport, in a process of its own. Arguments: the transport, the port, then
 * for {@code quic} the certificate and key PEM files, for {@code udp} the static key in hex. Prints
 * {@code READY} once it listens; runs until killed.
 */
public final class RestartServerMain {
  /** Echoes each message of a call in progress. */
  static final MethodDescriptor<String, String> CHAT = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.BIDI_STREAMING).setFullMethodName("tern.test.Restart/Chat")
      .setRequestMarshaller(Utf8.MARSHALLER).setResponseMarshaller(Utf8.MARSHALLER).build();
  /** Answers one request. */
  static final MethodDescriptor<String, String> ECHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("tern.test.Restart/Echo")
      .setRequestMarshaller(Utf8.MARSHALLER).setResponseMarshaller(Utf8.MARSHALLER).build();
  /** How long a start keeps trying to bind the port the killed server held. */
  private static final long BIND_RETRY_MILLIS = 20_000;

  private RestartServerMain() {}

  static ServerServiceDefinition service() {
    return ServerServiceDefinition.builder("tern.test.Restart")
        .addMethod(CHAT, ServerCalls.asyncBidiStreamingCall(response -> new StreamObserver<String>() {
          @Override
          public void onNext(String message) {
            response.onNext(message);
          }

          @Override
          public void onError(Throwable t) {}

          @Override
          public void onCompleted() {
            response.onCompleted();
          }
        }))
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(request);
          response.onCompleted();
        }))
        .build();
  }

  public static void main(String[] args) throws Exception {
    String transport = args[0];
    int port = Integer.parseInt(args[1]);
    long deadline = System.nanoTime() + BIND_RETRY_MILLIS * 1_000_000L;
    Server server;
    while (true) {
      TernServerBuilder b = TernServerBuilder.create().listen(transport, new InetSocketAddress("127.0.0.1", port))
          .addService(service());
      if (transport.equals("quic")) {
        b.useTransportSecurity(new File(args[2]), new File(args[3]));
      } else if (transport.equals("udp")) {
        b.transportOption(UdpTransportOptions.SERVER_STATIC_KEY, HexFormat.of().parseHex(args[2]));
      }
      try {
        server = b.build().start();
        break;
      } catch (IOException e) {
        // The killed server's port may take a moment to be free again.
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
    System.out.println("READY " + transport + " " + port);
    System.out.flush();
    server.awaitTermination();
  }
}
