package dev.tern.conformance;

import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The server side of a download for the migration tests' peer processes, on any transport: once
 * the client half-closes, sends {@code messages} messages of {@code size} bytes, message {@code i}
 * filled with {@link #fill(int) fill(i)}, as fast as the stream takes them, then ends the call OK.
 * Prints {@code SERVED <the client's address as the connection names it then>} on standard output
 * when the call completes, {@code CANCELLED <status>} if it is cancelled.
 */
public final class PatternDownload implements ServerStreamListener {
  private final ServerStream stream;
  private final int messages;
  private final int size;
  private int sent;
  private boolean started;

  /**
   * Serves one download on {@code stream}.
   *
   * @param stream the call
   * @param messages how many messages
   * @param size bytes per message
   */
  public PatternDownload(ServerStream stream, int messages, int size) {
    this.stream = stream;
    this.messages = messages;
    this.size = size;
    stream.request(1);
  }

  /**
   * The byte every byte of message {@code message} holds.
   *
   * @param message the message's index
   * @return its fill byte
   */
  public static byte fill(int message) {
    return (byte) (message * 31 + 7);
  }

  @Override
  public void onMessage(ByteBuffer message) {}

  @Override
  public void onHalfClose() {
    started = true;
    stream.writeHeaders(new Metadata());
    pump();
  }

  @Override
  public void onReady() {
    if (started) {
      pump();
    }
  }

  private void pump() {
    while (sent < messages && stream.isReady()) {
      byte[] b = new byte[size];
      Arrays.fill(b, fill(sent));
      stream.writeMessage(ByteBuffer.wrap(b));
      sent++;
    }
    stream.flush();
    if (sent == messages) {
      sent++;
      stream.close(Status.OK, new Metadata());
    }
  }

  @Override
  public void onComplete() {
    System.out.println("SERVED " + stream.connectionInfo().remoteAddress());
    System.out.flush();
  }

  @Override
  public void onCancel(Status status) {
    System.out.println("CANCELLED " + status);
    System.out.flush();
  }
}
