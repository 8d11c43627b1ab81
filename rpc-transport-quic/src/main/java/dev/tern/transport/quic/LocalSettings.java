package dev.tern.transport.quic;

import dev.tern.rpc.spi.TransportOptions;
import io.netty.handler.codec.http3.DefaultHttp3SettingsFrame;
import io.netty.handler.codec.http3.Http3Settings;
import io.netty.handler.codec.http3.Http3SettingsFrame;

/** The HTTP/3 SETTINGS each side sends (RFC 9114 §7.2.4) and the parameters it accepts. */
final class LocalSettings {
  /**
   * Keeps Tern's version parameter and a server's stateless reset secret ({@link StatelessResets})
   * when decoding a peer's SETTINGS; other unknown ones are ignored.
   */
  static final Http3Settings.NonStandardHttp3SettingsValidator VALIDATOR =
      (id, value) -> (id == TernVersions.SETTING_ID || StatelessResets.isSecretSetting(id)) && value != null
          && value >= 0;

  private LocalSettings() {}

  /**
   * This side's SETTINGS: QPACK without a dynamic table (RFC 9204 §3.2.3: capacity 0, so no
   * blocked streams and no encoder-stream round trips), the largest header section accepted, and
   * the Tern versions.
   */
  static Http3SettingsFrame frame(long versionBits, TransportOptions o) {
    return frame(versionBits, o, null);
  }

  /** As {@link #frame(long, TransportOptions)}, with a server connection's reset secret if not null. */
  static Http3SettingsFrame frame(long versionBits, TransportOptions o, byte[] resetSecret) {
    Http3Settings s = new Http3Settings(VALIDATOR);
    if (resetSecret != null) {
      long[] v = StatelessResets.toSettings(resetSecret);
      s.put(StatelessResets.SETTING_SECRET_0, v[0]);
      s.put(StatelessResets.SETTING_SECRET_1, v[1]);
      s.put(StatelessResets.SETTING_SECRET_2, v[2]);
    }
    s.qpackMaxTableCapacity(0);
    s.qpackBlockedStreams(0);
    s.maxFieldSectionSize(o.get(TransportOptions.MAX_INBOUND_METADATA_SIZE));
    s.put(TernVersions.SETTING_ID, versionBits);
    return new DefaultHttp3SettingsFrame(s);
  }
}
