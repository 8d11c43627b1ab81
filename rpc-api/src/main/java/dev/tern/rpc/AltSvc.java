package dev.tern.rpc;

import io.grpc.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code alt-svc} field (RFC 7838 §3) a Tern server sends in the response headers of a call to
 * tell its client which better transports it offers, and on which port: for example
 * {@code tern-udp=":7443"; ma=86400; persist=1; v="2"; key="..."}. The client learns it only
 * from a connection whose server it authenticated (TLS) and remembers it per authority in its
 * {@link TransportMemory}.
 *
 * <p>Parsing is strict and bounded (a value from the network): a field longer than {@value
 * #MAX_FIELD_CHARS} characters, with more than {@value #MAX_ALTERNATIVES} alternatives or any
 * syntax error is refused as a whole, never partly applied.
 */
public final class AltSvc {
  /** The header's name. */
  public static final String HEADER = "alt-svc";
  /** {@value #HEADER} as a metadata key. */
  public static final Metadata.Key<String> KEY = Metadata.Key.of(HEADER, Metadata.ASCII_STRING_MARSHALLER);
  /** The longest field parsed; a longer one is refused. */
  public static final int MAX_FIELD_CHARS = 4096;
  /** The most alternatives one field may list. */
  public static final int MAX_ALTERNATIVES = 16;
  /** The freshness of an alternative whose field gives no {@code ma} (RFC 7838 §3.1: 24 hours). */
  public static final long DEFAULT_MAX_AGE_SECONDS = 86_400;

  private AltSvc() {}

  /**
   * One alternative service: a protocol on a port of the same host (an alternative on another
   * host is parsed but a Tern client does not use it).
   *
   * @param protocolId the protocol, percent-decoded (RFC 7838 §3: an ALPN protocol id)
   * @param host the alternative's host; empty for the origin's own host
   * @param port the port, 1..65535
   * @param maxAgeSeconds how long the alternative may be used ({@code ma})
   * @param persist whether it survives a change of network ({@code persist=1}, RFC 7838 §3.1)
   * @param parameters the other parameters, by name (lower case), values unquoted
   */
  public record Alternative(String protocolId, String host, int port, long maxAgeSeconds, boolean persist,
      Map<String, String> parameters) {
    /**
     * Checks the port and the max-age, and copies the parameters.
     *
     * @param protocolId the protocol, percent-decoded
     * @param host the alternative's host; empty for the origin's own host
     * @param port the port, 1..65535
     * @param maxAgeSeconds how long the alternative may be used, at least 0
     * @param persist whether it survives a change of network
     * @param parameters the other parameters
     * @throws IllegalArgumentException if the port or the max-age is out of range
     */
    public Alternative {
      Objects.requireNonNull(protocolId, "protocolId");
      Objects.requireNonNull(host, "host");
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port out of range: " + port);
      }
      if (maxAgeSeconds < 0) {
        throw new IllegalArgumentException("maxAgeSeconds < 0: " + maxAgeSeconds);
      }
      parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /**
     * Whether the alternative is on the origin's own host (its alt-authority names no host).
     *
     * @return true if the alt-authority names no host
     */
    public boolean sameHost() {
      return host.isEmpty();
    }
  }

  /**
   * A parsed field: either {@code clear} (forget every alternative of the origin) or a list.
   *
   * @param clear whether the field was {@code clear}
   * @param alternatives the alternatives in the order given; empty when {@code clear}
   */
  public record Field(boolean clear, List<Alternative> alternatives) {
    /**
     * Copies the list.
     *
     * @param clear whether the field was {@code clear}
     * @param alternatives the alternatives in the order given
     */
    public Field {
      alternatives = Collections.unmodifiableList(new ArrayList<>(alternatives));
    }
  }

  /**
   * Formats alternatives as a field value: each protocol id percent-encoded, the alt-authority
   * and every parameter value that is not a token quoted, {@code ma} and {@code persist=1} first.
   *
   * @param alternatives what to list; empty gives {@code clear}
   * @return the field value
   */
  public static String format(List<Alternative> alternatives) {
    if (alternatives.isEmpty()) {
      return "clear";
    }
    StringBuilder b = new StringBuilder();
    for (Alternative a : alternatives) {
      if (b.length() > 0) {
        b.append(", ");
      }
      b.append(encodeProtocolId(a.protocolId())).append("=\"")
          .append(a.host().indexOf(':') >= 0 ? "[" + a.host() + "]" : a.host()).append(':').append(a.port())
          .append('"');
      b.append("; ma=").append(a.maxAgeSeconds());
      if (a.persist()) {
        b.append("; persist=1");
      }
      for (Map.Entry<String, String> p : a.parameters().entrySet()) {
        b.append("; ").append(p.getKey()).append('=');
        String v = p.getValue();
        if (isToken(v)) {
          b.append(v);
        } else {
          b.append('"').append(v.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
      }
    }
    return b.toString();
  }

  /**
   * Parses a field value (RFC 7838 §3; tokens and quoted strings as RFC 9110 §5.6.2 and §5.6.4).
   *
   * @param value the field's value
   * @return the field
   * @throws IllegalArgumentException naming what is wrong and where, if the value is too long,
   *     lists too many alternatives or does not follow the grammar
   */
  public static Field parse(String value) {
    Objects.requireNonNull(value, "value");
    if (value.length() > MAX_FIELD_CHARS) {
      throw new IllegalArgumentException("alt-svc is " + value.length() + " characters, over " + MAX_FIELD_CHARS);
    }
    Parser p = new Parser(value);
    p.ows();
    if (p.rest().equals("clear")) {
      return new Field(true, Collections.emptyList());
    }
    List<Alternative> out = new ArrayList<>();
    do {
      p.ows();
      if (p.peek() == ',') {
        continue; // empty list elements are allowed (RFC 9110 §5.6.1)
      }
      if (p.atEnd()) {
        break;
      }
      if (out.size() == MAX_ALTERNATIVES) {
        throw p.error("more than " + MAX_ALTERNATIVES + " alternatives");
      }
      out.add(p.alternative());
      p.ows();
    } while (p.take(','));
    if (!p.atEnd()) {
      throw p.error("unexpected '" + p.peek() + "'");
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("alt-svc lists no alternative");
    }
    return new Field(false, out);
  }

  private static final class Parser {
    private final String s;
    private int i;

    Parser(String s) {
      this.s = s;
    }

    Alternative alternative() {
      String protocolId = decodeProtocolId(token());
      expect('=');
      String authority = quoted();
      int colon = authority.lastIndexOf(':');
      if (colon < 0) {
        throw error("the alt-authority '" + authority + "' has no port");
      }
      String host = authority.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port = port(authority.substring(colon + 1));
      long ma = DEFAULT_MAX_AGE_SECONDS;
      boolean persist = false;
      Map<String, String> params = new LinkedHashMap<>();
      while (true) {
        ows();
        if (!take(';')) {
          break;
        }
        ows();
        String name = token().toLowerCase(java.util.Locale.ROOT);
        expect('=');
        String v = peek() == '"' ? quoted() : token();
        if (params.size() >= 32) {
          throw error("too many parameters");
        }
        switch (name) {
          case "ma" -> ma = maxAge(v);
          case "persist" -> persist = "1".equals(v);
          default -> params.putIfAbsent(name, v);
        }
      }
      return new Alternative(protocolId, host, port, ma, persist, params);
    }

    private int port(String digits) {
      if (digits.isEmpty() || digits.length() > 5 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
        throw error("the port '" + digits + "' is not a number");
      }
      int port = Integer.parseInt(digits);
      if (port < 1 || port > 65535) {
        throw error("the port " + port + " is out of range");
      }
      return port;
    }

    private long maxAge(String digits) {
      if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
        throw error("ma '" + digits + "' is not a number of seconds");
      }
      // RFC 9111 §1.2.2: a delta-seconds too large to hold is the largest one can hold.
      return digits.length() > 10 ? Integer.MAX_VALUE : Math.min(Long.parseLong(digits), Integer.MAX_VALUE);
    }

    String token() {
      int start = i;
      while (i < s.length() && isTokenChar(s.charAt(i))) {
        i++;
      }
      if (i == start) {
        throw error(atEnd() ? "a token was expected" : "a token was expected, not '" + peek() + "'");
      }
      return s.substring(start, i);
    }

    String quoted() {
      expect('"');
      StringBuilder b = new StringBuilder();
      while (true) {
        if (atEnd()) {
          throw error("a quoted string is not closed");
        }
        char c = s.charAt(i++);
        if (c == '"') {
          return b.toString();
        }
        if (c == '\\') {
          if (atEnd()) {
            throw error("a quoted string is not closed");
          }
          c = s.charAt(i++);
        }
        if (c < 0x20 && c != '\t' || c == 0x7f || c > 0xff) {
          throw error("a quoted string holds the character " + (int) c);
        }
        b.append(c);
      }
    }

    void ows() {
      while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
        i++;
      }
    }

    boolean take(char c) {
      if (i < s.length() && s.charAt(i) == c) {
        i++;
        return true;
      }
      return false;
    }

    void expect(char c) {
      if (!take(c)) {
        throw error(atEnd() ? "'" + c + "' was expected" : "'" + c + "' was expected, not '" + peek() + "'");
      }
    }

    char peek() {
      return i < s.length() ? s.charAt(i) : 0;
    }

    boolean atEnd() {
      return i >= s.length();
    }

    String rest() {
      return s.substring(i).trim();
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("alt-svc: " + what + " at character " + i);
    }
  }

  /** RFC 9110 §5.6.2: tchar. */
  private static boolean isTokenChar(char c) {
    return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }

  private static boolean isToken(String v) {
    return !v.isEmpty() && v.chars().allMatch(c -> isTokenChar((char) c));
  }

  /** RFC 7838 §3: the ALPN id, with '%', ',', '=' and anything that is not a tchar percent-encoded. */
  private static String encodeProtocolId(String id) {
    StringBuilder b = new StringBuilder();
    for (byte x : id.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (x & 0xff);
      if (c < 0x80 && isTokenChar(c) && c != '%') {
        b.append(c);
      } else {
        b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
    return b.toString();
  }

  private static String decodeProtocolId(String token) {
    if (token.indexOf('%') < 0) {
      return token;
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c == '%') {
        int hi = i + 2 < token.length() ? Character.digit(token.charAt(i + 1), 16) : -1;
        int lo = hi >= 0 ? Character.digit(token.charAt(i + 2), 16) : -1;
        if (lo < 0) {
          throw new IllegalArgumentException("alt-svc: the protocol id '" + token + "' has a bad percent-encoding");
        }
        out.write(hi << 4 | lo);
        i += 2;
      } else {
        out.write(c);
      }
    }
    return new String(out.toByteArray(), StandardCharsets.UTF_8);
  }
}
