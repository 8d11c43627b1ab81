package dev.tern.transport.udp.sim;

/** One simulated RPC: what it sends and expects, and what happened. */
public final class Call {
  /**
   * Header of every request: the response size as 8 bytes; the top byte carries the call's
   * urgency + 1 (0: none given), as an RPC's request headers carry its priority.
   */
  static final int HEADER_BYTES = 8;

  /** When the client starts it, ns of virtual time. */
  public final long startNs;
  /** Request size in bytes (header included, at least {@link #HEADER_BYTES}). */
  public final int requestBytes;
  /** Response size in bytes. */
  public final int responseBytes;
  /** Urgency 0-7 (RFC 9218) both ends give the call's stream, or -1 for the default. */
  public final int urgency;

  long streamId = -1;
  long written;
  boolean finished;
  long read;
  long firstByteNs = -1;
  long doneNs = -1;
  long openedNs = -1;
  long cancelAtNs = -1;
  boolean cancelled;
  String error;

  /** A call of default priority. */
  public Call(long startNs, int requestBytes, int responseBytes) {
    this(startNs, requestBytes, responseBytes, -1);
  }

  /** A call whose stream has urgency {@code urgency} (0-7, or -1 for the default). */
  public Call(long startNs, int requestBytes, int responseBytes, int urgency) {
    if (urgency < -1 || urgency > 7) {
      throw new IllegalArgumentException("urgency must be -1..7: " + urgency);
    }
    this.urgency = urgency;
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

  /**
   * Makes the client cancel the call at {@code atNs} (reset its request, ask the server to stop
   * sending); the call then counts as done.
   */
  public Call cancelAt(long atNs) {
    this.cancelAtNs = atNs;
    return this;
  }

  /** Whether the client cancelled the call. */
  public boolean cancelled() {
    return cancelled;
  }

  /** When the call started (its stream opened), -1 if not yet. */
  public long openedNs() {
    return openedNs;
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
