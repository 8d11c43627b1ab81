package dev.tern.transport.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The mobile client's TCP path links against no Netty class: every class file of this module's
 * jar, of rpc-api's jar and of every jar on their runtime class path (grpc-okhttp, grpc-core,
 * okio, ...) is read, constant pool and all, for a reference to {@code io/netty/}. Runs on the
 * packaged jars, after {@code package}.
 */
class NoNettyOnTheMobilePathIT {
  private static final String NETTY = "io/netty/";

  @Test
  void noJarOfTheMobileTcpPathReferencesNetty() throws IOException {
    List<Path> jars = runtimeJars();
    assertThat(jars).as("the runtime class path, as written by the build").isNotEmpty();
    assertThat(jars.stream().map(p -> p.getFileName().toString()))
        .as("the jars checked").anyMatch(n -> n.startsWith("rpc-transport-okhttp-"))
        .anyMatch(n -> n.startsWith("rpc-api-")).anyMatch(n -> n.startsWith("grpc-okhttp-"))
        .anyMatch(n -> n.startsWith("grpc-core-"));
    List<String> found = new ArrayList<>();
    int classes = 0;
    for (Path jar : jars) {
      for (ClassRefs refs : nettyReferences(jar)) {
        classes++;
        if (!refs.netty.isEmpty()) {
          found.add(jar.getFileName() + "!" + refs.className + " -> " + refs.netty);
        }
      }
    }
    assertThat(classes).as("class files read").isGreaterThan(1000);
    assertThat(found).as("classes that refer to Netty").isEmpty();
  }

  /** The scanner itself finds Netty where it is: Netty's own jar refers to io/netty classes. */
  @Test
  void theScanFindsNettyInANettyJar() throws IOException {
    Path netty = Paths.get(io.netty.util.ResourceLeakDetector.class.getProtectionDomain().getCodeSource()
        .getLocation().getPath());
    int withNetty = 0;
    for (ClassRefs refs : nettyReferences(netty)) {
      if (!refs.netty.isEmpty()) {
        withNetty++;
      }
    }
    assertThat(withNetty).as("classes of %s that refer to io/netty", netty.getFileName()).isGreaterThan(10);
  }

  /** This module's jar and its runtime dependencies, from the file the build wrote. */
  private static List<Path> runtimeJars() throws IOException {
    String moduleJar = System.getProperty("tern.module.jar");
    String classpathFile = System.getProperty("tern.runtime.classpath");
    assertThat(moduleJar).as("system property tern.module.jar").isNotNull();
    assertThat(classpathFile).as("system property tern.runtime.classpath").isNotNull();
    List<Path> jars = new ArrayList<>();
    jars.add(Paths.get(moduleJar));
    String classpath = new String(Files.readAllBytes(Paths.get(classpathFile)), StandardCharsets.UTF_8).trim();
    for (String entry : classpath.split(File.pathSeparator)) {
      if (!entry.isEmpty()) {
        jars.add(Paths.get(entry));
      }
    }
    for (Path jar : jars) {
      assertThat(jar).as("an entry of the runtime class path").exists();
    }
    return jars;
  }

  /** Each class file of a jar, or of a directory of classes (a module of the reactor before it is packaged). */
  private static List<ClassRefs> nettyReferences(Path jar) throws IOException {
    List<ClassRefs> out = new ArrayList<>();
    if (Files.isDirectory(jar)) {
      List<Path> files;
      try (java.util.stream.Stream<Path> walk = Files.walk(jar)) {
        files = walk.filter(f -> f.toString().endsWith(".class")).collect(java.util.stream.Collectors.toList());
      }
      for (Path f : files) {
        out.add(scan(jar.relativize(f).toString().replace(File.separatorChar, '/'), Files.readAllBytes(f)));
      }
      return out;
    }
    try (JarFile file = new JarFile(jar.toFile())) {
      Enumeration<JarEntry> entries = file.entries();
      while (entries.hasMoreElements()) {
        JarEntry entry = entries.nextElement();
        String name = entry.getName();
        if (!name.endsWith(".class") || name.endsWith("module-info.class")) {
          continue;
        }
        try (InputStream in = file.getInputStream(entry)) {
          out.add(scan(name, in.readAllBytes()));
        }
      }
    }
    return out;
  }

  private static ClassRefs scan(String name, byte[] classFile) throws IOException {
    TreeSet<String> netty = new TreeSet<>();
    if (name.startsWith(NETTY)) {
      netty.add(name); // a Netty class bundled in the jar
    }
    for (String utf8 : ConstantPools.utf8Entries(classFile)) {
      if (utf8.contains(NETTY)) {
        netty.add(utf8);
      }
    }
    return new ClassRefs(name, netty);
  }

  private static final class ClassRefs {
    final String className;
    final TreeSet<String> netty;

    ClassRefs(String className, TreeSet<String> netty) {
      this.className = className;
      this.netty = netty;
    }
  }
}
