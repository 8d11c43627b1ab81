package dev.tern.netlab.emu;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;

/**
 * The few libc calls the TUN devices need, bound with JNA's direct mapping (no per-call
 * allocation). {@code size_t}/{@code ssize_t}/{@code unsigned long} are mapped to {@code long},
 * which holds on the LP64 Linux platforms the emulator supports.
 */
final class LibC {
  static final int O_RDWR = 2;
  static final short POLLIN = 1;

  static {
    Native.register(NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
  }

  private LibC() {}

  static native int open(String path, int flags) throws LastErrorException;

  static native int ioctl(int fd, long request, Pointer arg) throws LastErrorException;

  static native long read(int fd, Pointer buf, long count) throws LastErrorException;

  static native long write(int fd, Pointer buf, long count) throws LastErrorException;

  static native int poll(Pointer fds, long nfds, int timeoutMs) throws LastErrorException;

  static native int close(int fd) throws LastErrorException;

  static native int gettid();

  static native int sched_setscheduler(int pid, int policy, Pointer param) throws LastErrorException;

  static native int setpriority(int which, int who, int prio) throws LastErrorException;
}
