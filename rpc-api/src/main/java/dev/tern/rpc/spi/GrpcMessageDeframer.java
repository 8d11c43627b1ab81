package dev.tern.rpc.spi;

import io.grpc.DecompressorRegistry;
import io.grpc.StatusRuntimeException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * Turns a stream of bytes framed with {@link GrpcMessageFraming} back into whole messages and
 * hands them to a {@link Sink}, no more than were {@linkplain #request requested}.
 *
 * <p>Bytes fed in are kept until a message is complete and asked for; the transport bounds them by
 * its flow-control window (it grants the peer credit only as messages are delivered, see {@link
 * #bufferedBytes()}). A message whose prefix announces more than the maximum size fails at once,
 * before its body is buffered. The buffer for a message grows as its bytes arrive (doubling, up to
 * the declared length), so a prefix that announces a large message reserves no memory for bytes
 * that have not come.
 *
 * <p>Not thread-safe: one stream's transport thread drives it.
 */
public final class GrpcMessageDeframer {

  /** Receives whole, decompressed messages; ownership of each buffer passes to the sink. */
  public interface Sink {
    /**
     * One whole message, decompressed; called on the thread that fed or requested it.
     *
     * @param message the message, from its position to its limit; the sink now owns it
     */
    void messageRead(ByteBuffer message);
  }

  /** The first buffer of a message whose bytes have not arrived yet. */
  private static final int INITIAL_BODY_BYTES = 4096;

  private final int maxMessageSize;
  private final DecompressorRegistry registry;
  private final String encoding;
  private final Sink sink;
  private final ArrayDeque<ByteBuffer> input = new ArrayDeque<>();
  private final byte[] header = new byte[GrpcMessageFraming.HEADER_LENGTH];
  private int headerFilled;
  private boolean compressed;
  private ByteBuffer body;
  /** The declared length of the message being read; {@code body} grows toward it. */
  private int bodyLength;
  private long bufferedBytes;
  private long requested;
  private boolean delivering;
  private boolean failed;

  /**
   * A deframer for one stream.
   *
   * @param maxMessageSize largest message accepted, compressed or not, in bytes
   * @param encoding the stream's message encoding ({@code "identity"}, {@code "gzip"}, ...)
   * @param registry where the decompressor for {@code encoding} is looked up
   * @param sink where whole messages go
   */
  public GrpcMessageDeframer(int maxMessageSize, String encoding, DecompressorRegistry registry,
      Sink sink) {
    if (maxMessageSize < 0) {
      throw new IllegalArgumentException("maxMessageSize must be >= 0, was " + maxMessageSize);
    }
    this.maxMessageSize = maxMessageSize;
    this.encoding = encoding == null ? GrpcMessageFraming.IDENTITY : encoding;
    this.registry = Objects.requireNonNull(registry, "registry");
    this.sink = Objects.requireNonNull(sink, "sink");
  }

  /**
   * Feeds the remaining bytes of {@code bytes} (ownership passes to the deframer) and delivers what
   * is complete and requested. Input after a failure, and empty input, is ignored.
   *
   * @param bytes the next bytes of the stream, from its position to its limit
   * @throws StatusRuntimeException RESOURCE_EXHAUSTED for a message over the maximum size, INTERNAL
   *     for a malformed frame; the deframer ignores all later input
   */
  public void deframe(ByteBuffer bytes) {
    if (failed || !bytes.hasRemaining()) {
      return;
    }
    input.add(bytes);
    bufferedBytes += bytes.remaining();
    deliver();
  }

  /**
   * Allows {@code numMessages} more messages to be delivered, and delivers those already complete.
   * Requests add up; a sink may call this from {@link Sink#messageRead}.
   *
   * @param numMessages how many more messages may be delivered; greater than 0
   * @throws IllegalArgumentException if {@code numMessages} is not positive
   * @throws StatusRuntimeException as {@link #deframe}
   */
  public void request(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be > 0, was " + numMessages);
    }
    requested = Math.min(Long.MAX_VALUE / 2, requested + numMessages);
    deliver();
  }

  /**
   * Bytes fed but not yet delivered as messages (what the peer's credit should stay above).
   *
   * @return the count in bytes, as framed on the wire (prefixes included, before decompression)
   */
  public long bufferedBytes() {
    return bufferedBytes;
  }

  /**
   * Whether bytes fed have not all been delivered: a message has begun but is not yet complete,
   * or whole messages wait to be requested. A stream that ends with a message incomplete was
   * truncated.
   *
   * @return true if any fed byte is still held
   */
  public boolean hasPartialMessage() {
    return headerFilled > 0 || body != null || !input.isEmpty();
  }

  private void deliver() {
    if (delivering) {
      return; // a sink that calls request() re-enters; the outer loop picks it up
    }
    delivering = true;
    try {
      while (!failed && requested > 0 && readMessage()) {
        ByteBuffer message = body;
        body = null;
        headerFilled = 0;
        requested--;
        bufferedBytes -= GrpcMessageFraming.HEADER_LENGTH + message.remaining();
        if (compressed) {
          message = GrpcMessageFraming.decompress(message, GrpcMessageFraming.decompressorFor(encoding,
              registry), maxMessageSize);
        }
        sink.messageRead(message);
      }
    } catch (StatusRuntimeException e) {
      failed = true;
      input.clear();
      throw e;
    } finally {
      delivering = false;
    }
  }

  /** Assembles the next message from the input; true when {@code body} holds it whole. */
  private boolean readMessage() {
    while (headerFilled < header.length) {
      ByteBuffer in = input.peek();
      if (in == null) {
        return false;
      }
      int n = Math.min(header.length - headerFilled, in.remaining());
      in.get(header, headerFilled, n);
      headerFilled += n;
      dropIfEmpty(in);
    }
    if (body == null) {
      byte flag = header[0];
      GrpcMessageFraming.checkFlag(flag);
      compressed = flag == GrpcMessageFraming.FLAG_COMPRESSED;
      long length = ((header[1] & 0xffL) << 24) | ((header[2] & 0xff) << 16)
          | ((header[3] & 0xff) << 8) | (header[4] & 0xff);
      GrpcMessageFraming.checkSize(length, maxMessageSize);
      bodyLength = (int) length;
      // Sized by what has arrived, not by what the prefix claims: the rest may never come.
      body = ByteBuffer.allocate((int) Math.min(bodyLength, Math.max(INITIAL_BODY_BYTES, bufferedInput())));
    }
    while (body.position() < bodyLength) {
      ByteBuffer in = input.peek();
      if (in == null) {
        return false;
      }
      int n = Math.min(bodyLength - body.position(), in.remaining());
      if (body.remaining() < n) {
        grow(n);
      }
      ByteBuffer part = in.duplicate();
      ((Buffer) part).limit(part.position() + n); // Buffer's methods: ByteBuffer's overrides are Java 9
      body.put(part);
      ((Buffer) in).position(in.position() + n);
      dropIfEmpty(in);
    }
    ((Buffer) body).flip();
    return true;
  }

  /** Bytes fed and not yet taken into a message (what the next message can use now). */
  private long bufferedInput() {
    long n = 0;
    for (ByteBuffer b : input) {
      n += b.remaining();
    }
    return n;
  }

  /** Makes room for {@code needed} more bytes: at least double, never past the declared length. */
  private void grow(int needed) {
    long wanted = Math.max((long) body.position() + needed, 2L * body.capacity());
    ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(bodyLength, wanted));
    ((Buffer) body).flip();
    bigger.put(body);
    body = bigger;
  }

  private void dropIfEmpty(ByteBuffer in) {
    if (!in.hasRemaining()) {
      input.poll();
    }
  }
}
