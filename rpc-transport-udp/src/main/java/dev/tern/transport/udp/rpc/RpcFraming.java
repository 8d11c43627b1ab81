package dev.tern.transport.udp.rpc;

import dev.tern.rpc.Priority;
import dev.tern.rpc.spi.GrpcMessageFraming;
import dev.tern.rpc.spi.GrpcTimeout;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.transport.udp.packet.VarInt;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The RPC mapping of Tern's UDP protocol (docs/protocol.md §10): one call per bidirectional
 * stream, each direction a sequence of records {@code type(1) length(4, big-endian) payload}.
 * Types 0 and 1 are gRPC's Length-Prefixed-Message exactly (the type byte is its compressed
 * flag); the others carry the call's head and tail:
 *
 * <ul>
 *   <li>{@link #REQUEST_HEADER} (client, first and once): version, flags, urgency, timeout,
 *       method, authority, encodings, metadata;
 *   <li>{@link #RESPONSE_HEADERS} (server, at most once, before any message): the response
 *       encoding and metadata;
 *   <li>{@link #TRAILERS} (server, last, then FIN): status code, description, metadata.
 * </ul>
 *
 * Strings are a varint length (RFC 9000 §16) and UTF-8; metadata is a varint count of entries,
 * each a key string and a value (varint length and bytes): raw bytes for keys ending in
 * {@code -bin} (grpc-java's binary headers, no base64 on this wire), ASCII otherwise. A key with
 * several values has one entry per value, in order.
 */
final class RpcFraming {
  /** Record prefix: type and length. */
  static final int PREFIX = GrpcMessageFraming.HEADER_LENGTH;
  static final int MESSAGE = 0x00;
  static final int MESSAGE_COMPRESSED = 0x01;
  static final int REQUEST_HEADER = 0x80;
  static final int RESPONSE_HEADERS = 0x81;
  static final int TRAILERS = 0x82;

  /** Request header flags. */
  static final int FLAG_EARLY_DATA_ALLOWED = 1;
  static final int FLAG_IDEMPOTENT = 2;
  static final int FLAG_INCREMENTAL = 4;

  /** Application error codes of RESET_STREAM and STOP_SENDING on an RPC stream. */
  static final long CODE_NO_ERROR = 0x0;
  static final long CODE_CANCELLED = 0x1;
  static final long CODE_INTERNAL = 0x2;
  /** The server did not process the call (it shuts down): safe to retry elsewhere. */
  static final long CODE_REFUSED = 0x3;
  /** Application close code of a connection whose sides share no Tern protocol version. */
  static final long CLOSE_NO_COMMON_VERSION = 0x10;
  /**
   * Application close code of a connection the server drained (its shutdown, age or idleness)
   * and closed once none of its calls was left and all it sent was acknowledged: no call the
   * client still has open on it was processed (docs/protocol.md §10.7).
   */
  static final long CLOSE_DRAINED = 0x11;

  /** Keys the mapping carries in fields of its own; never sent as metadata. */
  private static final Set<String> RESERVED = new HashSet<>(Arrays.asList("grpc-status",
      "grpc-message", "grpc-timeout", "grpc-encoding", "grpc-accept-encoding", "content-type",
      "te"));

  private RpcFraming() {}

  // ---- writing -----------------------------------------------------------------------------

  /** A growable buffer for one record; the prefix is filled in by {@link #finish}. */
  private static final class Out {
    ByteBuffer b = ByteBuffer.allocate(256);

    Out(int type) {
      b.put((byte) type).putInt(0);
    }

    void ensure(int n) {
      if (b.remaining() < n) {
        ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + n));
        ((Buffer) b).flip();
        bigger.put(b);
        b = bigger;
      }
    }

    void varint(long v) {
      ensure(8);
      VarInt.write(b, v);
    }

    void bytes(byte[] v) {
      varint(v.length);
      ensure(v.length);
      b.put(v);
    }

    void string(String s) {
      bytes(s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8));
    }

    void u8(int v) {
      ensure(1);
      b.put((byte) v);
    }

    void metadata(Metadata md) {
      List<String> keys = new ArrayList<>();
      List<byte[]> values = new ArrayList<>();
      for (String k : md.keys()) {
        if (RESERVED.contains(k)) {
          continue;
        }
        if (k.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
          for (byte[] v : md.getAll(Metadata.Key.of(k, Metadata.BINARY_BYTE_MARSHALLER))) {
            keys.add(k);
            values.add(v);
          }
        } else {
          for (String v : md.getAll(Metadata.Key.of(k, Metadata.ASCII_STRING_MARSHALLER))) {
            keys.add(k);
            values.add(v.getBytes(StandardCharsets.US_ASCII));
          }
        }
      }
      varint(keys.size());
      for (int i = 0; i < keys.size(); i++) {
        string(keys.get(i));
        bytes(values.get(i));
      }
    }

    ByteBuffer finish() {
      b.putInt(1, b.position() - PREFIX);
      ((Buffer) b).flip();
      return b;
    }
  }

  /** The request header record of a call on a connection that agreed {@code version}. */
  static ByteBuffer requestHeader(RequestHeaders h, int version, String defaultAuthority) {
    Out o = new Out(REQUEST_HEADER);
    o.varint(version);
    Priority p = h.priority();
    o.u8((h.earlyDataAllowed() ? FLAG_EARLY_DATA_ALLOWED : 0)
        | (h.idempotent() ? FLAG_IDEMPOTENT : 0) | (p.incremental() ? FLAG_INCREMENTAL : 0));
    o.u8(p.urgency());
    Deadline d = h.deadline();
    o.string(d == null ? ""
        : GrpcTimeout.encode(Math.max(1, d.timeRemaining(TimeUnit.NANOSECONDS))));
    o.string(h.fullMethodName());
    o.string(h.authority() != null ? h.authority() : defaultAuthority);
    o.string(GrpcMessageFraming.IDENTITY.equals(h.messageEncoding()) ? "" : h.messageEncoding());
    o.string(String.join(",", h.acceptedMessageEncodings()));
    o.metadata(h.metadata());
    return o.finish();
  }

  /** The response headers record. */
  static ByteBuffer responseHeaders(Metadata md, String encoding) {
    Out o = new Out(RESPONSE_HEADERS);
    o.string(encoding == null || GrpcMessageFraming.IDENTITY.equals(encoding) ? "" : encoding);
    o.metadata(md);
    return o.finish();
  }

  /** The trailers record: status code, description (as given, UTF-8), metadata. */
  static ByteBuffer trailers(Status status, Metadata md) {
    Out o = new Out(TRAILERS);
    o.varint(status.getCode().value());
    o.string(status.getDescription() == null ? "" : status.getDescription());
    o.metadata(md == null ? new Metadata() : md);
    return o.finish();
  }

  // ---- reading ------------------------------------------------------------------------------

  /** A request header as read: the call's head and the version the client named. */
  static final class Request {
    final int version;
    final RequestHeaders headers;

    Request(int version, RequestHeaders headers) {
      this.version = version;
      this.headers = headers;
    }
  }

  /** Response headers as read. */
  static final class Response {
    final String encoding;
    final Metadata metadata;

    Response(String encoding, Metadata metadata) {
      this.encoding = encoding;
      this.metadata = metadata;
    }
  }

  /** Trailers as read. */
  static final class Trailers {
    final Status status;
    final Metadata metadata;

    Trailers(Status status, Metadata metadata) {
      this.status = status;
      this.metadata = metadata;
    }
  }

  /**
   * Parses a request header payload.
   *
   * @param earlyData whether the stream arrived before the handshake completed
   * @throws StatusRuntimeException INTERNAL naming what is malformed
   */
  static Request parseRequest(ByteBuffer in, boolean earlyData) {
    long version = varint(in, "version");
    int flags = u8(in, "flags");
    int urgency = u8(in, "urgency");
    if (urgency > Priority.LEAST_URGENT) {
      throw malformed("urgency " + urgency + " is not in 0..7");
    }
    String timeout = string(in, "timeout");
    String method = string(in, "method");
    if (method.isEmpty()) {
      throw malformed("empty method name");
    }
    String authority = string(in, "authority");
    String encoding = string(in, "encoding");
    String accept = string(in, "accepted encodings");
    Metadata md = metadata(in);
    end(in);
    RequestHeaders.Builder b = RequestHeaders.builder(method)
        .authority(authority.isEmpty() ? null : authority)
        .metadata(md)
        .messageEncoding(encoding.isEmpty() ? null : encoding)
        .acceptedMessageEncodings(accept.isEmpty() ? Collections.<String>emptyList()
            : Arrays.asList(accept.split(",", -1)))
        .priority(Priority.of(urgency, (flags & FLAG_INCREMENTAL) != 0))
        .earlyDataAllowed(earlyData || (flags & FLAG_EARLY_DATA_ALLOWED) != 0)
        .idempotent((flags & FLAG_IDEMPOTENT) != 0);
    if (!timeout.isEmpty()) {
      long nanos;
      try {
        nanos = GrpcTimeout.decode(timeout);
      } catch (IllegalArgumentException e) {
        throw malformed(e.getMessage());
      }
      b.deadline(Deadline.after(nanos, TimeUnit.NANOSECONDS));
    }
    if (version > Integer.MAX_VALUE) {
      throw malformed("version " + version + " out of range");
    }
    return new Request((int) version, b.build());
  }

  /** Parses a response headers payload. */
  static Response parseResponse(ByteBuffer in) {
    String encoding = string(in, "encoding");
    Metadata md = metadata(in);
    end(in);
    return new Response(encoding.isEmpty() ? GrpcMessageFraming.IDENTITY : encoding, md);
  }

  /** Parses a trailers payload. */
  static Trailers parseTrailers(ByteBuffer in) {
    long code = varint(in, "status code");
    if (code > 16) {
      throw malformed("status code " + code + " is not a gRPC code");
    }
    String description = string(in, "status description");
    Metadata md = metadata(in);
    end(in);
    Status s = Status.fromCodeValue((int) code);
    return new Trailers(description.isEmpty() ? s : s.withDescription(description), md);
  }

  private static Metadata metadata(ByteBuffer in) {
    long count = varint(in, "metadata count");
    if (count > in.remaining()) {
      throw malformed("metadata count " + count + " exceeds the record");
    }
    Metadata md = new Metadata();
    for (long i = 0; i < count; i++) {
      String key = string(in, "metadata key").toLowerCase(Locale.ROOT);
      byte[] value = bytes(in, "metadata value of " + key);
      try {
        if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
          md.put(Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER), value);
        } else {
          md.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER),
              new String(value, StandardCharsets.US_ASCII));
        }
      } catch (IllegalArgumentException e) {
        throw malformed("metadata key '" + key + "': " + e.getMessage());
      }
    }
    return md;
  }

  private static long varint(ByteBuffer in, String what) {
    long v = VarInt.read(in);
    if (v == VarInt.MALFORMED) {
      throw malformed(what + " is cut short");
    }
    return v;
  }

  private static int u8(ByteBuffer in, String what) {
    if (!in.hasRemaining()) {
      throw malformed(what + " is missing");
    }
    return in.get() & 0xff;
  }

  private static byte[] bytes(ByteBuffer in, String what) {
    long n = varint(in, what + " length");
    if (n > in.remaining()) {
      throw malformed(what + " of " + n + " bytes exceeds the record");
    }
    byte[] out = new byte[(int) n];
    in.get(out);
    return out;
  }

  private static String string(ByteBuffer in, String what) {
    return new String(bytes(in, what), StandardCharsets.UTF_8);
  }

  private static void end(ByteBuffer in) {
    if (in.hasRemaining()) {
      throw malformed(in.remaining() + " bytes after the last field");
    }
  }

  static StatusRuntimeException malformed(String what) {
    return Status.INTERNAL.withDescription("malformed RPC record: " + what).asRuntimeException();
  }
}
