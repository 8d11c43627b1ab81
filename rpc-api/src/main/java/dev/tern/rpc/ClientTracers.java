package dev.tern.rpc;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ClientStreamTracer;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@link ClientStreamTracer}s a call's {@link CallOptions} ask for (census, interop metrics),
 * told of the call's stream, messages and close.
 */
final class ClientTracers {
  private static final Logger log = Logger.getLogger(ClientTracers.class.getName());
  private static final ClientStreamTracer[] NONE = new ClientStreamTracer[0];

  private final ClientStreamTracer[] tracers;
  private int outboundSeq;
  private int inboundSeq;
  private boolean closed;

  private ClientTracers(ClientStreamTracer[] tracers) {
    this.tracers = tracers;
  }

  static ClientTracers create(CallOptions options, Metadata headers) {
    return create(options, headers, 0, false);
  }

  /**
   * The tracers of one attempt of a call: {@code previousAttempts} attempts came before it, and
   * {@code transparentRetry} says whether it replays an attempt the transport refused unprocessed.
   */
  static ClientTracers create(CallOptions options, Metadata headers, int previousAttempts,
      boolean transparentRetry) {
    List<ClientStreamTracer.Factory> factories = options.getStreamTracerFactories();
    if (factories.isEmpty()) {
      return new ClientTracers(NONE);
    }
    ClientStreamTracer.StreamInfo info = ClientStreamTracer.StreamInfo.newBuilder().setCallOptions(options)
        .setPreviousAttempts(previousAttempts).setIsTransparentRetry(transparentRetry).build();
    ClientStreamTracer[] t = new ClientStreamTracer[factories.size()];
    for (int i = 0; i < t.length; i++) {
      t[i] = factories.get(i).newClientStreamTracer(info, headers);
    }
    return new ClientTracers(t);
  }

  void streamCreated(Attributes attrs, Metadata headers) {
    for (ClientStreamTracer t : tracers) {
      t.streamCreated(attrs, headers);
      t.outboundHeaders();
    }
  }

  synchronized void outboundMessage(long size) {
    int seq = outboundSeq++;
    for (ClientStreamTracer t : tracers) {
      t.outboundMessage(seq);
      t.outboundUncompressedSize(size);
      t.outboundWireSize(size);
      t.outboundMessageSent(seq, size, size);
    }
  }

  /**
   * Tells each tracer the response headers arrived. Only the one-argument form is called: grpc-api's
   * default {@code inboundHeaders(Metadata)} calls {@code inboundHeaders()} itself, so calling both
   * would count the headers twice. A tracer that throws is logged and skipped, so neither the other
   * tracers nor the application's {@code onHeaders}, which runs next in the same task, lose the event.
   */
  void inboundHeaders(Metadata headers) {
    for (ClientStreamTracer t : tracers) {
      try {
        t.inboundHeaders(headers);
      } catch (RuntimeException e) {
        log.log(Level.WARNING, "client stream tracer " + t + " threw in inboundHeaders; ignored", e);
      }
    }
  }

  synchronized void inboundMessage(long size) {
    int seq = inboundSeq++;
    for (ClientStreamTracer t : tracers) {
      t.inboundMessage(seq);
      t.inboundUncompressedSize(size);
      t.inboundWireSize(size);
      t.inboundMessageRead(seq, size, size);
    }
  }

  synchronized void closed(Status status, Metadata trailers) {
    if (closed) {
      return;
    }
    closed = true;
    for (ClientStreamTracer t : tracers) {
      t.inboundTrailers(trailers);
      t.streamClosed(status);
    }
  }
}
