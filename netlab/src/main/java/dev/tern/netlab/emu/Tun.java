package dev.tern.netlab.emu;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.Closeable;

/**
 * A TUN device (IP packets, no packet-information header) opened through {@code /dev/net/tun}.
 * The device lives as long as its descriptor; it may be moved to another network namespace and
 * the descriptor keeps working. Reads and writes go through caller-owned native memory.
 */
final class Tun implements Closeable {
  // linux/if_tun.h
  private static final long TUNSETIFF = 0x400454caL;
  private static final short IFF_TUN = 0x0001;
  private static final short IFF_NO_PI = 0x1000;
  private static final int IFNAMSIZ = 16;
  private static final int EINTR = 4;
  private static final int EAGAIN = 11;
  private static final short POLLERR = 0x008;
  private static final short POLLHUP = 0x010;
  private static final short POLLNVAL = 0x020;

  private final String name;
  private final int fd;
  private final Memory pollFd = new Memory(8);
  private volatile boolean closed;

  private Tun(String name, int fd) {
    this.name = name;
    this.fd = fd;
    pollFd.setInt(0, fd);
    pollFd.setShort(4, LibC.POLLIN);
  }

  /**
   * Creates the TUN device {@code name} (at most 15 characters) in the caller's namespace.
   *
   * @throws IllegalStateException naming the device and the errno on failure
   */
  static Tun open(String name) {
    if (name.isEmpty() || name.length() >= IFNAMSIZ) {
      throw new IllegalArgumentException("TUN name must have 1-15 characters, got '" + name + "'");
    }
    int fd;
    try {
      fd = LibC.open("/dev/net/tun", LibC.O_RDWR);
    } catch (LastErrorException e) {
      throw new IllegalStateException("cannot open /dev/net/tun (errno " + e.getErrorCode() + ")", e);
    }
    Memory ifr = new Memory(40); // struct ifreq
    ifr.clear();
    byte[] n = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    ifr.write(0, n, 0, n.length);
    ifr.setShort(IFNAMSIZ, (short) (IFF_TUN | IFF_NO_PI));
    try {
      LibC.ioctl(fd, TUNSETIFF, ifr);
    } catch (LastErrorException e) {
      LibC.close(fd);
      throw new IllegalStateException("TUNSETIFF for " + name + " failed (errno " + e.getErrorCode() + ")", e);
    }
    return new Tun(name, fd);
  }

  /** The interface name. */
  String name() {
    return name;
  }

  /**
   * Waits up to {@code timeoutMs} for a packet.
   *
   * @return true when a read will not block
   */
  boolean awaitReadable(int timeoutMs) {
    try {
      if (LibC.poll(pollFd, 1, timeoutMs) <= 0) {
        return false;
      }
      short revents = pollFd.getShort(6);
      if ((revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
        // The device is gone or broken: stop rather than spin on an always-ready descriptor.
        throw new IllegalStateException("TUN " + name + " failed (poll revents 0x"
            + Integer.toHexString(revents & 0xffff) + ")");
      }
      return true;
    } catch (LastErrorException e) {
      if (e.getErrorCode() == EINTR) {
        return false;
      }
      throw e;
    }
  }

  /** Reads one packet into {@code buf}; returns its length, or -1 when nothing was ready. */
  int read(Pointer buf, int capacity) {
    try {
      return (int) LibC.read(fd, buf, capacity);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == EINTR || e.getErrorCode() == EAGAIN) {
        return -1;
      }
      throw e;
    }
  }

  /** Writes one packet of {@code len} bytes from {@code buf}; the kernel takes it whole or fails. */
  void write(Pointer buf, int len) {
    LibC.write(fd, buf, len);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      LibC.close(fd);
    }
  }
}
