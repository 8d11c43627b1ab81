package dev.tern.transport.quic;

import dev.tern.rpc.spi.TransportOptions;
import io.netty.handler.codec.http3.DefaultHttp3SettingsFrame;
import io.netty.handler.codec.http3.Http3Settings;
import io.netty.handler.codec.http3.Http3SettingsFrame;

/** The HTTP/3 SETTINGS each side sends (RFC 9114 §7.2.4) and the parameters it accepts. */
final class LocalSettings {
  /** Keeps Tern's version parameter when decoding a peer's SETTINGS; other unknown ones are ignored. */
  static final Http3Settings.NonStandardHttp3SettingsValidator VALIDATOR =
      (id, value) -> id == TernVersions.SETTING_ID && value != null && value >= 0;

  private LocalSettings() {}

  /**
   * This side's SETTINGS: QPACK without a dynamic table (RFC 9204 §3.2.3: capacity 0, so no
   * blocked streams and no encoder-stream round trips), the largest header section accepted, and
   * the Tern versions.
   */
  static Http3SettingsFrame frame(long versionBits, TransportOptions o) {
    Http3Settings s = new Http3Settings(VALIDATOR);
    s.qpackMaxTableCapacity(0);
    s.qpackBlockedStreams(0);
    s.maxFieldSectionSize(o.get(TransportOptions.MAX_INBOUND_METADATA_SIZE));
    s.put(TernVersions.SETTING_ID, versionBits);
    return new DefaultHttp3SettingsFrame(s);
  }
}
