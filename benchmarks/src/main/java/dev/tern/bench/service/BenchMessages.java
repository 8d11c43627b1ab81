package dev.tern.bench.service;

import java.nio.ByteBuffer;

/**
 * Layout of the benchmark messages. Every message starts with a small fixed header; the rest is
 * padding up to the size asked for. Times are {@link System#nanoTime()} values: client and server
 * run on one host, where that clock (CLOCK_MONOTONIC) is shared by every process and namespace, so
 * one-way delays can be read directly.
 *
 * <pre>
 * unary request:     int responseBytes, long clientSendNs, padding
 * unary response:    long serverRecvNs, long serverSendNs, padding
 * download request:  long totalBytes, int chunkBytes, long callId
 * download chunk:    long serverSendNs, padding
 * stats request:     long callId        stats response: long bytesCommitted, long cancelSeenNs
 * </pre>
 */
public final class BenchMessages {
  /** Bytes of the unary request header. */
  public static final int UNARY_REQUEST_HEADER = 12;
  /** Bytes of the unary response header. */
  public static final int UNARY_RESPONSE_HEADER = 16;
  /** Bytes of a download chunk's header. */
  public static final int CHUNK_HEADER = 8;
  /** Largest response or chunk the server agrees to produce. */
  public static final int MAX_MESSAGE_BYTES = 4 * 1024 * 1024 - 64;

  private BenchMessages() {}

  /** A unary request of {@code requestBytes} asking for {@code responseBytes}. */
  public static byte[] unaryRequest(int requestBytes, int responseBytes, long clientSendNs) {
    byte[] b = new byte[Math.max(requestBytes, UNARY_REQUEST_HEADER)];
    ByteBuffer.wrap(b).putInt(responseBytes).putLong(clientSendNs);
    return b;
  }

  /** The response size a unary request asks for. */
  public static int requestedResponseBytes(byte[] request) {
    checkLength(request, UNARY_REQUEST_HEADER, "unary request");
    return ByteBuffer.wrap(request).getInt(0);
  }

  /** The client's send time written in a unary request. */
  public static long clientSendNs(byte[] request) {
    checkLength(request, UNARY_REQUEST_HEADER, "unary request");
    return ByteBuffer.wrap(request).getLong(4);
  }

  /** A unary response of {@code bytes} carrying the server's receive and send times. */
  public static byte[] unaryResponse(int bytes, long serverRecvNs, long serverSendNs) {
    byte[] b = new byte[Math.max(bytes, UNARY_RESPONSE_HEADER)];
    ByteBuffer.wrap(b).putLong(serverRecvNs).putLong(serverSendNs);
    return b;
  }

  /** The server's receive time in a unary response. */
  public static long serverRecvNs(byte[] response) {
    checkLength(response, UNARY_RESPONSE_HEADER, "unary response");
    return ByteBuffer.wrap(response).getLong(0);
  }

  /** The server's send time in a unary response. */
  public static long serverSendNs(byte[] response) {
    checkLength(response, UNARY_RESPONSE_HEADER, "unary response");
    return ByteBuffer.wrap(response).getLong(8);
  }

  /** A download request. */
  public static byte[] downloadRequest(long totalBytes, int chunkBytes, long callId) {
    return ByteBuffer.allocate(20).putLong(totalBytes).putInt(chunkBytes).putLong(callId).array();
  }

  /** A download chunk of {@code bytes} stamped with the server's send time. */
  public static byte[] chunk(int bytes, long serverSendNs) {
    byte[] b = new byte[Math.max(bytes, CHUNK_HEADER)];
    ByteBuffer.wrap(b).putLong(serverSendNs);
    return b;
  }

  /** The send time stamped on a chunk. */
  public static long chunkSendNs(byte[] chunk) {
    checkLength(chunk, CHUNK_HEADER, "download chunk");
    return ByteBuffer.wrap(chunk).getLong(0);
  }

  /** Encodes a long as an 8-byte message. */
  public static byte[] longMessage(long value) {
    return ByteBuffer.allocate(8).putLong(value).array();
  }

  static void checkLength(byte[] message, int min, String what) {
    if (message.length < min) {
      throw new IllegalArgumentException(what + " must be at least " + min + " bytes, was " + message.length);
    }
  }
}
