package dev.tern.transport.quic;

import dev.tern.rpc.spi.GrpcTimeout;
import dev.tern.rpc.Priority;
import dev.tern.rpc.spi.RequestHeaders;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.Http3Headers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Maps calls onto HTTP/3 header sections the way gRPC over HTTP/3 (gRFC G2, which reuses the
 * gRPC over HTTP/2 protocol's headers) does: {@code :method POST}, {@code :path /Service/Method},
 * {@code content-type application/grpc}, {@code te trailers}, {@code grpc-timeout}, {@code
 * grpc-encoding}, {@code grpc-accept-encoding}; responses with {@code :status 200}; trailers with
 * {@code grpc-status} and {@code grpc-message}. Metadata keys ending in {@code -bin} carry base64.
 * The call's priority travels as RFC 9218 §5's {@code priority} header so the server can give its
 * response stream the same urgency.
 */
final class GrpcHttp3Headers {
  static final String CONTENT_TYPE_GRPC = "application/grpc";
  /** Carries the client's early-data permission (RFC 8470's {@code Early-Data} is for proxies). */
  static final String EARLY_DATA_ALLOWED = "tern-early-data";
  private static final Set<String> RESERVED = Set.of(EARLY_DATA_ALLOWED, "content-type", "te", "grpc-timeout", "grpc-encoding",
      "grpc-accept-encoding", "grpc-status", "grpc-message", "priority",
      "connection", "host", "user-agent");
  private static final Base64.Encoder BASE64 = Base64.getEncoder().withoutPadding();

  private GrpcHttp3Headers() {}

  /** The request header section of a call. */
  static Http3Headers request(RequestHeaders h, String authority) {
    Http3Headers out = new DefaultHttp3Headers();
    out.method("POST").scheme("https").path("/" + h.fullMethodName());
    String auth = h.authority() != null ? h.authority() : authority;
    if (auth != null) {
      out.authority(auth);
    }
    out.add("content-type", CONTENT_TYPE_GRPC).add("te", "trailers").add("user-agent", "tern-quic");
    Deadline deadline = h.deadline();
    if (deadline != null) {
      out.add("grpc-timeout", GrpcTimeout.encode(Math.max(1, deadline.timeRemaining(TimeUnit.NANOSECONDS))));
    }
    if (!"identity".equals(h.messageEncoding())) {
      out.add("grpc-encoding", h.messageEncoding());
    }
    out.add("grpc-accept-encoding", String.join(",", h.acceptedMessageEncodings()));
    if (!Priority.DEFAULT.equals(h.priority())) {
      out.add("priority", h.priority().toString());
    }
    if (h.earlyDataAllowed()) {
      out.add(EARLY_DATA_ALLOWED, "?1");
    }
    putMetadata(out, h.metadata());
    return out;
  }

  /**
   * Reads a request header section back into {@link RequestHeaders}; {@code earlyData} says the
   * request arrived in 0-RTT packets (then the client allowed it, whatever the header says).
   *
   * @throws io.grpc.StatusRuntimeException when the section is not a gRPC request
   */
  static RequestHeaders parseRequest(Http3Headers in, boolean earlyData) {
    CharSequence method = in.method();
    if (method == null || !"POST".contentEquals(method)) {
      throw Status.INTERNAL.withDescription("gRPC request must use POST, was " + method).asRuntimeException();
    }
    CharSequence path = in.path();
    if (path == null || path.length() < 2 || path.charAt(0) != '/') {
      throw Status.UNIMPLEMENTED.withDescription("malformed :path " + path).asRuntimeException();
    }
    CharSequence contentType = in.get("content-type");
    if (contentType == null || !contentType.toString().startsWith(CONTENT_TYPE_GRPC)) {
      throw Status.INTERNAL.withDescription("content-type is not application/grpc: " + contentType)
          .asRuntimeException();
    }
    RequestHeaders.Builder b = RequestHeaders.builder(path.subSequence(1, path.length()).toString());
    CharSequence authority = in.authority();
    if (authority != null) {
      b.authority(authority.toString());
    }
    CharSequence timeout = in.get("grpc-timeout");
    if (timeout != null) {
      try {
        b.deadline(Deadline.after(GrpcTimeout.decode(timeout.toString()), TimeUnit.NANOSECONDS));
      } catch (IllegalArgumentException e) {
        throw Status.INTERNAL.withDescription(e.getMessage()).asRuntimeException();
      }
    }
    CharSequence encoding = in.get("grpc-encoding");
    if (encoding != null) {
      b.messageEncoding(encoding.toString());
    }
    CharSequence accept = in.get("grpc-accept-encoding");
    if (accept != null) {
      List<String> encodings = new ArrayList<>();
      for (String e : accept.toString().split(",")) {
        if (!e.isBlank()) {
          encodings.add(e.trim());
        }
      }
      b.acceptedMessageEncodings(encodings);
    } else {
      b.acceptedMessageEncodings(List.of("identity"));
    }
    CharSequence priority = in.get("priority");
    if (priority != null) {
      b.priority(parsePriority(priority.toString()));
    }
    b.earlyDataAllowed(earlyData || in.contains(EARLY_DATA_ALLOWED));
    b.metadata(readMetadata(in));
    return b.build();
  }

  /** RFC 9218 §4: {@code u=N} and {@code i} in a structured-field dictionary; bad parts are ignored. */
  static Priority parsePriority(String value) {
    int urgency = Priority.DEFAULT_URGENCY;
    boolean incremental = false;
    for (String part : value.split(",")) {
      String p = part.trim();
      if (p.startsWith("u=") && p.length() == 3 && p.charAt(2) >= '0' && p.charAt(2) <= '7') {
        urgency = p.charAt(2) - '0';
      } else if (p.equals("i") || p.equals("i=?1")) {
        incremental = true;
      }
    }
    return Priority.of(urgency, incremental);
  }

  /** Response headers: {@code :status 200}, the content type, the chosen encoding and metadata. */
  static Http3Headers responseHeaders(Metadata md, String encoding) {
    Http3Headers out = new DefaultHttp3Headers();
    out.status("200").add("content-type", CONTENT_TYPE_GRPC);
    if (encoding != null && !"identity".equals(encoding)) {
      out.add("grpc-encoding", encoding);
    }
    putMetadata(out, md);
    return out;
  }

  /** Trailers, or a trailers-only response when {@code headersSent} is false. */
  static Http3Headers trailers(Status status, Metadata md, boolean headersSent) {
    Http3Headers out = new DefaultHttp3Headers();
    if (!headersSent) {
      out.status("200").add("content-type", CONTENT_TYPE_GRPC);
    }
    out.add("grpc-status", Integer.toString(status.getCode().value()));
    if (status.getDescription() != null) {
      out.add("grpc-message", percentEncode(status.getDescription()));
    }
    putMetadata(out, md);
    return out;
  }

  /** The status carried by a trailer section (or a malformed-response status). */
  static Status statusOf(Http3Headers in) {
    CharSequence code = in.get("grpc-status");
    if (code == null) {
      return Status.INTERNAL.withDescription("response trailers lack grpc-status");
    }
    Status status;
    try {
      status = Status.fromCodeValue(Integer.parseInt(code.toString()));
    } catch (NumberFormatException e) {
      return Status.INTERNAL.withDescription("malformed grpc-status: " + code);
    }
    CharSequence message = in.get("grpc-message");
    return message == null ? status : status.withDescription(percentDecode(message.toString()));
  }

  /** Maps a non-200 {@code :status} to the gRPC code the HTTP/2 protocol document gives. */
  static Status httpStatusToGrpc(CharSequence httpStatus) {
    int code;
    try {
      code = Integer.parseInt(String.valueOf(httpStatus));
    } catch (NumberFormatException e) {
      return Status.INTERNAL.withDescription("malformed :status " + httpStatus);
    }
    Status s;
    switch (code) {
      case 400: s = Status.INTERNAL; break;
      case 401: s = Status.UNAUTHENTICATED; break;
      case 403: s = Status.PERMISSION_DENIED; break;
      case 404: s = Status.UNIMPLEMENTED; break;
      case 429: case 502: case 503: case 504: s = Status.UNAVAILABLE; break;
      default: s = Status.UNKNOWN;
    }
    return s.withDescription("HTTP status " + code);
  }

  /** Application metadata of a header section (reserved and pseudo headers left out). */
  static Metadata readMetadata(Http3Headers in) {
    Metadata md = new Metadata();
    for (Map.Entry<CharSequence, CharSequence> e : in) {
      String name = e.getKey().toString();
      if (name.startsWith(":") || RESERVED.contains(name)) {
        continue;
      }
      try {
        if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
          Metadata.Key<byte[]> key = Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER);
          for (String v : e.getValue().toString().split(",")) {
            md.put(key, Base64.getDecoder().decode(v.trim()));
          }
        } else {
          md.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER), e.getValue().toString());
        }
      } catch (IllegalArgumentException malformed) {
        // A header gRPC cannot represent (bad name or base64): dropped, as grpc-java does.
      }
    }
    return md;
  }

  private static void putMetadata(Http3Headers out, Metadata md) {
    if (md == null) {
      return;
    }
    for (String name : md.keys()) {
      if (RESERVED.contains(name) || name.startsWith(":")) {
        continue;
      }
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        Iterable<byte[]> values = md.getAll(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER));
        if (values != null) {
          for (byte[] v : values) {
            out.add(name, BASE64.encodeToString(v));
          }
        }
      } else {
        Iterable<String> values = md.getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER));
        if (values != null) {
          for (String v : values) {
            out.add(name, v);
          }
        }
      }
    }
  }

  /** gRPC's {@code grpc-message} encoding: UTF-8, then bytes outside 0x20..0x7e and '%' as %XX. */
  static String percentEncode(String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    StringBuilder sb = null;
    for (int i = 0; i < bytes.length; i++) {
      int b = bytes[i] & 0xff;
      boolean plain = b >= 0x20 && b <= 0x7e && b != '%';
      if (!plain && sb == null) {
        sb = new StringBuilder(bytes.length + 16);
        for (int j = 0; j < i; j++) {
          sb.append((char) bytes[j]);
        }
      }
      if (sb != null) {
        if (plain) {
          sb.append((char) b);
        } else {
          sb.append('%').append(Character.toUpperCase(Character.forDigit(b >> 4, 16)))
              .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
        }
      }
    }
    return sb == null ? s : sb.toString();
  }

  /** Reverses {@link #percentEncode}; a malformed escape is kept as it is. */
  static String percentDecode(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    byte[] out = new byte[s.length()];
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length()) {
        int hi = Character.digit(s.charAt(i + 1), 16);
        int lo = Character.digit(s.charAt(i + 2), 16);
        if (hi >= 0 && lo >= 0) {
          out[n++] = (byte) ((hi << 4) | lo);
          i += 2;
          continue;
        }
      }
      out[n++] = (byte) c;
    }
    return new String(out, 0, n, StandardCharsets.UTF_8);
  }
}
