package dev.tern.transport.udp.stream;

/** What {@link SendStream#emit} wrote, reused across calls (no allocation per frame). */
public final class EmittedFrame {
  /** Stream offset of the frame's data. */
  public long offset;
  /** Data length. */
  public int length;
  /** Whether FIN was set. */
  public boolean fin;
  /** How many of the bytes were fresh (they consume connection credit). */
  public int freshBytes;

  void set(long offset, int length, boolean fin, int freshBytes) {
    this.offset = offset;
    this.length = length;
    this.fin = fin;
    this.freshBytes = freshBytes;
  }
}
