package dev.tern.rpc.spi;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.zip.CRC32;

/**
 * The file-backed {@link SessionStore} of {@link SessionStores#file(Path, int, long)}: an
 * in-memory store whose every change is written through to a file, atomically.
 *
 * <p>File format, version 1 (big-endian):
 *
 * <pre>
 * magic "TernSess" (8 bytes), format version (1 byte) = 1, entry count (4 bytes),
 * entries: server length (2) + server (UTF-8), kind length (2) + kind (UTF-8),
 *          expires at, Unix millis (8), value length (4) + value,
 * CRC-32 (4) of every byte before it (CRC-32, not CRC-32C: the client runs on Android from
 * API level 26, which lacks {@code java.util.zip.CRC32C}).
 * </pre>
 *
 * A file that does not follow it exactly (wrong magic or version, a count or a length that runs
 * past the end, bytes left over, a wrong checksum, invalid UTF-8) is ignored as a whole.
 */
final class FileSessionStore implements SessionStore {
  private static final Logger LOG = Logger.getLogger(FileSessionStore.class.getName());

  static final byte[] MAGIC = "TernSess".getBytes(StandardCharsets.US_ASCII);
  static final int FORMAT_VERSION = 1;
  /** Magic, version, count, checksum. */
  static final int FIXED_BYTES = MAGIC.length + 1 + 4 + 4;
  /** A temporary file older than this is left over from a crash and deleted on open. */
  static final long STRAY_TEMP_AGE_MILLIS = 60_000;
  private static final String TEMP_SUFFIX = ".tmp";

  private final Path file;
  private final Path dir;
  private final String tempPrefix;
  private final int maxEntries;
  private final long maxBytes;
  private final LongSupplier clock;
  private final SessionStores.MemoryStore memory;
  /** Changes made to {@link #memory}; a write covers every change counted before it began. */
  private final AtomicLong changes = new AtomicLong();
  private final Object io = new Object();
  /** The last change on disk; guarded by {@link #io}. */
  private long written;

  FileSessionStore(Path file, int maxEntries, long maxBytes, LongSupplier clock) {
    this.file = file.toAbsolutePath();
    this.dir = this.file.getParent();
    this.tempPrefix = this.file.getFileName() + ".";
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.memory = new SessionStores.MemoryStore(maxEntries, maxBytes);
    deleteStrayTemps();
    load();
  }

  @Override
  public void add(String server, String kind, byte[] value, long expiresAtMillis) {
    memory.add(server, kind, value, expiresAtMillis);
    changed("add");
  }

  @Override
  public byte[] take(String server, String kind, long nowMillis) {
    byte[] value = memory.take(server, kind, nowMillis);
    if (value == null) {
      return null;
    }
    // The entry must be gone from the disk before anyone uses it: a ticket used once and found
    // again after a restart would be replayed.
    return changed("take") ? value : null;
  }

  @Override
  public void put(String server, String kind, byte[] value, long expiresAtMillis) {
    memory.put(server, kind, value, expiresAtMillis);
    changed("put");
  }

  @Override
  public byte[] get(String server, String kind, long nowMillis) {
    return memory.get(server, kind, nowMillis);
  }

  @Override
  public void remove(String server, String kind) {
    memory.remove(server, kind);
    changed("remove");
  }

  /** Entries in memory (for tests). */
  int size() {
    return memory.size();
  }

  /** Writes the store out unless a write that began after this change already has. */
  private boolean changed(String what) {
    long mine = changes.incrementAndGet();
    synchronized (io) {
      if (written >= mine) {
        return true;
      }
      long upTo = changes.get();
      try {
        write(encode());
        written = upTo;
        return true;
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.WARNING, "session store " + file + ": could not write it after " + what
            + "; the change is kept in memory only", e);
        return false;
      }
    }
  }

  private byte[] encode() throws IOException {
    List<SessionStores.Key> keys = new ArrayList<>();
    List<SessionStores.Entry> entries = new ArrayList<>();
    memory.forEachLive(clock.getAsLong(), (k, e) -> {
      keys.add(k);
      entries.add(e);
    });
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.write(MAGIC);
    out.writeByte(FORMAT_VERSION);
    out.writeInt(entries.size());
    for (int i = 0; i < entries.size(); i++) {
      writeString(out, keys.get(i).server());
      writeString(out, keys.get(i).kind());
      SessionStores.Entry e = entries.get(i);
      out.writeLong(e.expiresAtMillis());
      out.writeInt(e.value().length);
      out.write(e.value());
    }
    out.flush();
    CRC32 crc = new CRC32();
    byte[] body = bytes.toByteArray();
    crc.update(body, 0, body.length);
    out.writeInt((int) crc.getValue());
    out.flush();
    return bytes.toByteArray();
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    if (b.length > 0xffff) {
      throw new IOException("server or kind longer than 65535 bytes");
    }
    out.writeShort(b.length);
    out.write(b);
  }

  /** Temporary file in the same directory, forced to the device, moved over the file. */
  private void write(byte[] content) throws IOException {
    Path temp = Files.createTempFile(dir, tempPrefix, TEMP_SUFFIX);
    try {
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      temp = null;
      forceDirectory();
    } finally {
      if (temp != null) {
        Files.deleteIfExists(temp);
      }
    }
  }

  /** Makes the rename itself durable where the platform allows it (not on Windows). */
  private void forceDirectory() {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // Opening a directory is not supported everywhere; the file itself is already forced.
    }
  }

  private void deleteStrayTemps() {
    long cutoff = System.currentTimeMillis() - STRAY_TEMP_AGE_MILLIS;
    try (DirectoryStream<Path> temps =
        Files.newDirectoryStream(dir, glob(tempPrefix) + "*" + TEMP_SUFFIX)) {
      for (Path t : temps) {
        if (Files.getLastModifiedTime(t).toMillis() < cutoff) {
          Files.deleteIfExists(t);
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.FINE, "session store " + file + ": could not clean temporary files", e);
    }
  }

  private static String glob(String literal) {
    StringBuilder sb = new StringBuilder();
    for (char c : literal.toCharArray()) {
      if ("*?[]{}\\".indexOf(c) >= 0) {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.toString();
  }

  private void load() {
    byte[] content;
    try {
      long size = Files.size(file);
      long limit = FIXED_BYTES + maxBytes + 8L * maxEntries;
      if (size > limit) {
        ignore("it is " + size + " bytes, more than the store's bounds allow (" + limit + ")");
        return;
      }
      content = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return;
    } catch (IOException | RuntimeException e) {
      ignore("it cannot be read: " + e);
      return;
    }
    String why = decode(content);
    if (why != null) {
      ignore(why);
    }
  }

  private void ignore(String why) {
    LOG.warning("session store " + file + ": starting empty; the file is ignored because " + why);
  }

  /** Loads {@code content} into memory, or returns why it is not a valid file (memory empty). */
  private String decode(byte[] content) {
    if (content.length < FIXED_BYTES) {
      return "it is truncated (" + content.length + " bytes)";
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (content[i] != MAGIC[i]) {
        return "it is not a Tern session store";
      }
    }
    ByteBuffer in = ByteBuffer.wrap(content);
    ((Buffer) in).position(MAGIC.length);
    int version = in.get() & 0xff;
    if (version != FORMAT_VERSION) {
      return "its format version is " + version + ", not " + FORMAT_VERSION;
    }
    CRC32 crc = new CRC32();
    crc.update(content, 0, content.length - 4);
    if ((int) crc.getValue() != ByteBuffer.wrap(content, content.length - 4, 4).getInt()) {
      return "its checksum does not match (truncated or garbled)";
    }
    ByteBuffer body = ByteBuffer.wrap(content, 0, content.length - 4);
    ((Buffer) body).position(in.position());
    long count = body.getInt() & 0xffffffffL;
    List<Object[]> loaded = new ArrayList<>();
    try {
      for (long i = 0; i < count; i++) {
        String server = readString(body);
        String kind = readString(body);
        long expires = body.getLong();
        int len = body.getInt();
        if (len < 0 || len > body.remaining()) {
          return "an entry's length runs past the end";
        }
        byte[] value = new byte[len];
        body.get(value);
        loaded.add(new Object[] {server, kind, value, expires});
      }
    } catch (java.nio.BufferUnderflowException | CharacterCodingException e) {
      return "an entry is cut short or not UTF-8";
    }
    if (body.hasRemaining()) {
      return "bytes follow the last entry";
    }
    long now = clock.getAsLong();
    for (Object[] e : loaded) {
      if ((long) e[3] > now) {
        memory.add((String) e[0], (String) e[1], (byte[]) e[2], (long) e[3]);
      }
    }
    return null;
  }

  private static String readString(ByteBuffer in) throws CharacterCodingException {
    int len = in.getShort() & 0xffff;
    if (len > in.remaining()) {
      throw new java.nio.BufferUnderflowException();
    }
    ByteBuffer slice = in.slice();
    ((Buffer) slice).limit(len);
    ((Buffer) in).position(in.position() + len);
    return StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(slice).toString();
  }
}
