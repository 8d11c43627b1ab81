package dev.tern.transport.udp.sim;

/** One simulated RPC: what it sends and expects, and what happened. */
public final class Call {
  /** Header of every request: the response size as 8 bytes. */
  static final int HEADER_BYTES = 8;

  /** When the client starts it, ns of virtual time. */
  public final long startNs;
  /** Request size in bytes (header included, at least {@link #HEADER_BYTES}). */
  public final int requestBytes;
  /** Response size in bytes. */
  public final int responseBytes;

  long streamId = -1;
  long written;
  boolean finished;
  long read;
  long firstByteNs = -1;
  long doneNs = -1;
  String error;

  /** A call. */
  public Call(long startNs, int requestBytes, int responseBytes) {
    if (requestBytes < HEADER_BYTES) {
      throw new IllegalArgumentException("requestBytes must be >= 8: " + requestBytes);
    }
    this.startNs = startNs;
    this.requestBytes = requestBytes;
    this.responseBytes = responseBytes;
  }

  /** When the whole response (with its end) had been read, -1 if never. */
  public long doneNs() {
    return doneNs;
  }

  /** The stream the call used. */
  public long streamId() {
    return streamId;
  }

  /** What went wrong, or null. */
  public String error() {
    return error;
  }

  /** Response bytes read so far. */
  public long responseBytesRead() {
    return read;
  }
}
