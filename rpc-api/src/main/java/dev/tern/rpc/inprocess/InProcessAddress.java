package dev.tern.rpc.inprocess;

import java.net.SocketAddress;
import java.util.Objects;

/** The address of an in-process server: a name unique within the JVM. */
public final class InProcessAddress extends SocketAddress {
  /** Serialisation version. */
  private static final long serialVersionUID = 1L;

  /** The server's name. */
  private final String name;

  /**
   * The address named {@code name}.
   *
   * @param name the server's name; not null or empty
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public InProcessAddress(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("in-process address name must not be empty");
    }
    this.name = name;
  }

  /**
   * The server's name.
   *
   * @return the name given to the constructor
   */
  public String name() {
    return name;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InProcessAddress && ((InProcessAddress) o).name.equals(name);
  }

  @Override
  public int hashCode() {
    return name.hashCode();
  }

  /** {@code inprocess:<name>}. */
  @Override
  public String toString() {
    return "inprocess:" + name;
  }
}
