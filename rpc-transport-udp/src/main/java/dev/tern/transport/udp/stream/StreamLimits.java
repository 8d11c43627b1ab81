package dev.tern.transport.udp.stream;

/**
 * The limits one side sets for its streams: the windows it advertises and how many streams the
 * peer may open, plus the send buffer per stream. Immutable.
 */
public final class StreamLimits {
  /** Connection receive window (initial_max_data). */
  public final long connectionWindowBytes;
  /** Per-stream receive window (initial_max_stream_data). */
  public final int streamWindowBytes;
  /** Streams the peer may open at once (initial_max_streams). */
  public final int maxStreams;
  /** Unacknowledged bytes the application may buffer per stream. */
  public final int sendBufferBytes;

  /** Limits with the given values; each must be positive. */
  public StreamLimits(long connectionWindowBytes, int streamWindowBytes, int maxStreams,
      int sendBufferBytes) {
    require(connectionWindowBytes, "connectionWindowBytes");
    require(streamWindowBytes, "streamWindowBytes");
    require(maxStreams, "maxStreams");
    require(sendBufferBytes, "sendBufferBytes");
    this.connectionWindowBytes = connectionWindowBytes;
    this.streamWindowBytes = streamWindowBytes;
    this.maxStreams = maxStreams;
    this.sendBufferBytes = sendBufferBytes;
  }

  private static void require(long v, String name) {
    if (v <= 0) {
      throw new IllegalArgumentException(name + " must be positive: " + v);
    }
  }

  /**
   * The defaults of docs/protocol.md §7: 4 MiB per connection and 1 MiB per stream (enough for
   * 80 Mbit/s at 100 ms per stream; receive buffers grow only with what arrives), 100 streams,
   * 1 MiB of send buffer per stream.
   */
  public static StreamLimits defaults() {
    return new StreamLimits(4 << 20, 1 << 20, 100, 1 << 20);
  }
}
