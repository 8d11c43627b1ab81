package dev.tern.transport.okhttp;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the constant pool of a class file (JVMS §4.4) and returns the names it refers to: every
 * class entry's name and every UTF-8 entry (descriptors and signatures name classes too, as
 * {@code Lio/netty/...;}). Enough to tell which packages a class links against.
 */
final class ConstantPools {
  private ConstantPools() {}

  /** Every CONSTANT_Utf8 string of the class file (class names, descriptors, signatures, literals). */
  static List<String> utf8Entries(byte[] classFile) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
    if (in.readInt() != 0xCAFEBABE) {
      throw new IOException("not a class file (magic)");
    }
    in.readUnsignedShort(); // minor_version
    in.readUnsignedShort(); // major_version
    int count = in.readUnsignedShort();
    List<String> out = new ArrayList<>();
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1: // CONSTANT_Utf8
          out.add(in.readUTF());
          break;
        case 7: // Class
        case 8: // String
        case 16: // MethodType
        case 19: // Module
        case 20: // Package
          in.skipBytes(2);
          break;
        case 15: // MethodHandle
          in.skipBytes(3);
          break;
        case 3: // Integer
        case 4: // Float
        case 9: // Fieldref
        case 10: // Methodref
        case 11: // InterfaceMethodref
        case 12: // NameAndType
        case 17: // Dynamic
        case 18: // InvokeDynamic
          in.skipBytes(4);
          break;
        case 5: // Long
        case 6: // Double: takes two entries (JVMS §4.4.5)
          in.skipBytes(8);
          i++;
          break;
        default:
          throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
      }
    }
    return out;
  }
}
