package dev.tern.rpc.guice;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * What {@link TernModule} builds the server and the channel with: where the server listens (one
 * address per transport), the channel's target and transports, and whether both go without TLS.
 * Made with {@link #newBuilder()} or read from configuration with {@link #fromProperties}.
 * Immutable.
 */
public final class TernOptions {
  private final Map<String, InetSocketAddress> listen;
  private final String target;
  private final List<String> transports;
  private final boolean plaintext;

  private TernOptions(Builder b) {
    this.listen = Collections.unmodifiableMap(new LinkedHashMap<>(b.listen));
    this.target = b.target;
    this.transports = List.copyOf(b.transports);
    this.plaintext = b.plaintext;
  }

  /**
   * A builder with nothing set: no listen address, no target, every transport, TLS.
   *
   * @return a new builder
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * Options read from configuration, every key under {@code prefix}:
   *
   * <ul>
   *   <li>{@code <prefix>server.listen.<transport>=host:port}: the server listens with that
   *       transport there ({@code tern.server.listen.tcp=0.0.0.0:8443}); port 0 picks a free one;
   *   <li>{@code <prefix>channel.target=host:port}: the channel's target;
   *   <li>{@code <prefix>channel.transports=quic,tcp}: the channel's transports, in order
   *       (absent: the channel's default preference);
   *   <li>{@code <prefix>plaintext=true}: no TLS on the server or the channel.
   * </ul>
   *
   * @param properties the configuration
   * @param prefix the keys' prefix, such as {@code "tern."}; may be empty
   * @return the options
   * @throws IllegalArgumentException naming the key and its value, if a value is malformed or a
   *     key under the prefix is unknown
   * @throws NullPointerException if an argument is null
   */
  public static TernOptions fromProperties(Properties properties, String prefix) {
    Objects.requireNonNull(properties, "properties");
    Objects.requireNonNull(prefix, "prefix");
    Builder b = newBuilder();
    for (String key : properties.stringPropertyNames()) {
      if (!key.startsWith(prefix)) {
        continue;
      }
      String name = key.substring(prefix.length());
      String value = properties.getProperty(key).trim();
      if (name.startsWith("server.listen.")) {
        b.listen(name.substring("server.listen.".length()), hostPort(key, value));
      } else if (name.equals("channel.target")) {
        hostPort(key, value);
        b.target(value);
      } else if (name.equals("channel.transports")) {
        List<String> names = new ArrayList<>();
        for (String t : value.split(",")) {
          if (!t.isBlank()) {
            names.add(t.trim());
          }
        }
        b.transports(names.toArray(new String[0]));
      } else if (name.equals("plaintext")) {
        String v = value.toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) {
          throw new IllegalArgumentException(key + ": '" + value + "' is not true or false");
        }
        b.plaintext(v.equals("true"));
      } else {
        throw new IllegalArgumentException(key + ": unknown option (known: " + prefix + "server.listen.<transport>, "
            + prefix + "channel.target, " + prefix + "channel.transports, " + prefix + "plaintext)");
      }
    }
    return b.build();
  }

  private static InetSocketAddress hostPort(String key, String value) {
    int colon = value.lastIndexOf(':');
    if (colon <= 0 || colon == value.length() - 1) {
      throw new IllegalArgumentException(key + ": '" + value + "' is not host:port");
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(value.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + ": '" + value + "' has no numeric port", e);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(key + ": '" + value + "' has a port outside 0..65535");
    }
    return new InetSocketAddress(host, port);
  }

  /**
   * Where the server listens, per transport name.
   *
   * @return an unmodifiable map in the order given; empty if the server listens nowhere
   */
  public Map<String, InetSocketAddress> listen() {
    return listen;
  }

  /**
   * The channel's target, {@code host:port}.
   *
   * @return the target, or null if none was given (no channel can be made)
   */
  public String target() {
    return target;
  }

  /**
   * The channel's transports in order.
   *
   * @return the names; empty for the channel's default preference
   */
  public List<String> transports() {
    return transports;
  }

  /**
   * Whether the server and the channel go without TLS.
   *
   * @return true for plaintext
   */
  public boolean plaintext() {
    return plaintext;
  }

  /** Builds {@link TernOptions}. */
  public static final class Builder {
    private final Map<String, InetSocketAddress> listen = new LinkedHashMap<>();
    private String target;
    private List<String> transports = List.of();
    private boolean plaintext;

    private Builder() {}

    /**
     * The server also listens with {@code transport} on {@code address}.
     *
     * @param transport a transport's name, such as {@code "tcp"}
     * @param address where; port 0 picks a free port
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder listen(String transport, InetSocketAddress address) {
      listen.put(Objects.requireNonNull(transport, "transport"), Objects.requireNonNull(address, "address"));
      return this;
    }

    /**
     * The channel's target.
     *
     * @param hostPort {@code host:port}
     * @return this builder
     * @throws NullPointerException if {@code hostPort} is null
     */
    public Builder target(String hostPort) {
      target = Objects.requireNonNull(hostPort, "hostPort");
      return this;
    }

    /**
     * The channel's transports, in order.
     *
     * @param names transport names; none for the default preference
     * @return this builder
     */
    public Builder transports(String... names) {
      transports = List.of(names);
      return this;
    }

    /**
     * Whether the server and the channel go without TLS (default false).
     *
     * @param value true for plaintext
     * @return this builder
     */
    public Builder plaintext(boolean value) {
      plaintext = value;
      return this;
    }

    /**
     * The options.
     *
     * @return new options with this builder's values
     */
    public TernOptions build() {
      return new TernOptions(this);
    }
  }
}
