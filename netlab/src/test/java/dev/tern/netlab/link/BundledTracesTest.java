package dev.tern.netlab.link;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The traces ship on the class path, unmodified, and the profiles find them from anywhere. */
class BundledTracesTest {
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void profilesLoadWithNoPropertyNoEnvironmentAndAnyWorkingDirectory(@TempDir Path cwd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), ProfilesLoadMain.class.getName())
        .directory(cwd.toFile()).redirectErrorStream(true);
    pb.environment().remove(LinkProfiles.TRACES_DIR_ENV);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(50, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("override false");
    for (String file : LinkProfiles.bundledTraces()) {
      assertThat(out).contains(" bundled:" + file + " ");
    }
    assertThat(out).contains("lte-verizon bundled:Verizon-LTE-short.down 5027");
  }

  /**
   * Each bundled file's git blob id is the one its README lists (the id of the file in the
   * repository it was copied from): the copies are byte for byte.
   */
  @Test
  void bundledFilesMatchTheChecksumsInTheirReadme() throws Exception {
    String readme = resource("README.txt");
    assertThat(resource("LICENSE-TRACES")).contains("GPL-3.0-or-later");
    assertThat(resource("COPYING")).contains("GNU GENERAL PUBLIC LICENSE").contains("Version 3");
    List<String> files = LinkProfiles.bundledTraces();
    assertThat(files).hasSize(10);
    for (String file : files) {
      byte[] data = bytes(file);
      String line = readme.lines().filter(l -> l.startsWith(file + " ")).findFirst().orElseThrow(
          () -> new AssertionError("README.txt lists no " + file));
      assertThat(line).as(file).contains(" " + data.length + " ").contains(gitBlobSha1(data))
          .contains(HexFormat.of().formatHex(sha1(data)));
    }
  }

  private static String resource(String name) throws IOException {
    return new String(bytes(name), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String name) throws IOException {
    try (InputStream in = LinkProfiles.class.getResourceAsStream(LinkProfiles.BUNDLED_RESOURCES + name)) {
      assertThat(in).as(name + " on the class path").isNotNull();
      return in.readAllBytes();
    }
  }

  /** Git's object id of a blob: SHA-1 over {@code "blob <size>\0"} and the content. */
  private static String gitBlobSha1(byte[] data) throws NoSuchAlgorithmException {
    MessageDigest md = MessageDigest.getInstance("SHA-1");
    md.update(("blob " + data.length + "\0").getBytes(StandardCharsets.US_ASCII));
    return HexFormat.of().formatHex(md.digest(data));
  }

  private static byte[] sha1(byte[] data) throws NoSuchAlgorithmException {
    return MessageDigest.getInstance("SHA-1").digest(data);
  }
}
