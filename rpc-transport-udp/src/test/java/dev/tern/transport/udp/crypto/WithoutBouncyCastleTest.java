package dev.tern.transport.udp.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * BouncyCastle is an optional dependency: where it is absent from the class path, {@code auto}
 * still chooses the JDK's provider, and asking for {@code bc} by name says why it cannot run,
 * rather than failing with a {@link NoClassDefFoundError}. The provider classes are loaded here
 * from the module's compiled classes by a class loader that cannot see BouncyCastle.
 */
class WithoutBouncyCastleTest {
  private static ClassLoader withoutBouncyCastle() throws Exception {
    URL classes = Path.of("target", "classes").toUri().toURL();
    ClassLoader loader = new URLClassLoader(new URL[] {classes},
        ClassLoader.getPlatformClassLoader());
    assertThat(loader.getResource("org/bouncycastle/crypto/Digest.class"))
        .as("BouncyCastle hidden").isNull();
    return loader;
  }

  @Test
  void autoChoosesTheJdkAndByNameExplainsWhatIsMissing() throws Exception {
    Class<?> providers = Class.forName(CryptoProviders.class.getName(), true,
        withoutBouncyCastle());
    Object auto = providers.getMethod("auto").invoke(null);
    assertThat(auto.getClass().getMethod("name").invoke(auto)).isEqualTo("jdk");
    try {
      providers.getMethod("byName", String.class).invoke(null, "bc");
      throw new AssertionError("bc was available without BouncyCastle");
    } catch (java.lang.reflect.InvocationTargetException e) {
      assertThat(e.getCause()).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("bcprov-jdk18on").hasMessageContaining("not on the class path");
    }
  }
}
