package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code docs/builder-methods.md} honest: every public or protected method of grpc-java's
 * {@link ManagedChannelBuilder} and {@link ServerBuilder} (as on the class path) has a row in its
 * table and no row names a method those classes do not have; every row marked "throws" throws an
 * {@link UnsupportedOperationException} naming Tern and each alternative the row gives in code font
 * after "instead:"; no row marked "works" throws one; and every test a "works" row names exists
 * (in rpc-api by reflection, in other modules in their sources, following {@code extends} to the
 * abstract suites).
 *
 * <p>Rows whose test is marked "(in progress)" are being finished in other changes and are NOT
 * proved by this test while marked: they are only listed on standard output. Today these are
 * {@code defaultServiceConfig}, {@code disableServiceConfigLookUp}, {@code maxRetryAttempts} and
 * {@code maxHedgedAttempts} ({@code ServiceConfigTest}), {@code addTransportFilter} on both
 * builders ({@code TransportFilterTest}) and {@code defaultLoadBalancingPolicy} ({@code
 * LoadBalancingTest}). Once the marker goes, they are checked like every other row.
 */
class BuilderMethodTableTest {
  private static final String IN_PROGRESS = "(in progress)";
  private static final Pattern CODE = Pattern.compile("`([^`]+)`");
  private static final Pattern TEST_REF = Pattern.compile("([\\w-]+):\\s*(\\w+)(?:#(\\w+))?");

  /** One row of a table: the method cell's signatures, and the status, notes and test cells. */
  private record Row(String section, List<String> methods, String status, String notes, String tests) {
    boolean works() {
      return status.startsWith("works");
    }

    boolean throwsUnsupported() {
      return status.startsWith("throws");
    }

    boolean inProgress() {
      return tests.contains(IN_PROGRESS);
    }
  }

  private static Path moduleDir() {
    return Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
  }

  private static Path repoRoot() {
    return moduleDir().getParent();
  }

  /** The rows of every table in the doc, by the section ("## ...") they are in. */
  private static List<Row> rows() {
    Path doc = repoRoot().resolve("docs/builder-methods.md");
    List<String> lines;
    try {
      lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the builder-method table at " + doc, e);
    }
    List<Row> rows = new ArrayList<>();
    String section = "";
    for (String line : lines) {
      if (line.startsWith("## ")) {
        section = line.substring(3).trim();
      } else if (line.startsWith("| `")) {
        String[] cells = line.substring(1, line.lastIndexOf('|')).split("\\|", -1);
        assertThat(cells).as("cells of row %s", line).hasSize(4);
        List<String> methods = new ArrayList<>();
        Matcher m = CODE.matcher(cells[0]);
        while (m.find()) {
          methods.add(m.group(1).trim());
        }
        rows.add(new Row(section, methods, cells[1].trim(), cells[2].trim(), cells[3].trim()));
      }
    }
    return rows;
  }

  private static List<Row> rowsOf(String sectionPrefix) {
    List<Row> out = new ArrayList<>();
    for (Row r : rows()) {
      if (r.section().startsWith(sectionPrefix)) {
        out.add(r);
      }
    }
    return out;
  }

  /** The rows of the table of grpc-java's {@code base} builder, by method signature. */
  private static Map<String, Row> tableOf(Class<?> base) {
    Map<String, Row> table = new LinkedHashMap<>();
    for (Row r : rowsOf(base == ManagedChannelBuilder.class ? "Channel" : "Server")) {
      assertThat(r.methods()).as("a row of the %s table names one method", base.getSimpleName()).hasSize(1);
      assertThat(table.put(r.methods().get(0), r)).as("second row for %s", r.methods().get(0)).isNull();
    }
    return table;
  }

  /** The public and protected methods {@code base} declares, by signature as the table writes it. */
  private static Map<String, Method> methodsOf(Class<?> base) {
    Map<String, Method> out = new LinkedHashMap<>();
    for (Method m : base.getDeclaredMethods()) {
      int mod = m.getModifiers();
      if ((Modifier.isPublic(mod) || Modifier.isProtected(mod)) && !m.isSynthetic() && !m.isBridge()) {
        out.put(signature(m), m);
      }
    }
    return out;
  }

  /** {@code name(Type, Type...)}: simple names, nested types with their outer class. */
  static String signature(Method m) {
    Class<?>[] types = m.getParameterTypes();
    StringBuilder sb = new StringBuilder(m.getName()).append('(');
    for (int i = 0; i < types.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      Class<?> t = types[i];
      if (m.isVarArgs() && i == types.length - 1) {
        sb.append(typeName(t.getComponentType())).append("...");
      } else {
        sb.append(typeName(t));
      }
    }
    return sb.append(')').toString();
  }

  private static String typeName(Class<?> t) {
    if (t.isArray()) {
      return typeName(t.getComponentType()) + "[]";
    }
    if (t.isPrimitive()) {
      return t.getName();
    }
    String canonical = t.getCanonicalName();
    String pkg = t.getPackageName();
    return pkg.isEmpty() ? canonical : canonical.substring(pkg.length() + 1);
  }

  @Test
  void everyBuilderMethodHasARowAndEveryRowAMethod() {
    for (Class<?> base : List.of(ManagedChannelBuilder.class, ServerBuilder.class)) {
      Map<String, Method> methods = methodsOf(base);
      Map<String, Row> table = tableOf(base);
      assertThat(methods).as("%s's methods found by reflection", base.getSimpleName()).hasSizeGreaterThan(20);
      assertThat(new TreeSet<>(table.keySet())).as("rows of the %s table in docs/builder-methods.md with no such"
          + " method in grpc-java's class", base.getSimpleName()).isSubsetOf(methods.keySet());
      assertThat(new TreeSet<>(methods.keySet())).as("methods of grpc-java's %s with no row in docs/builder-methods.md",
          base.getSimpleName()).isSubsetOf(table.keySet());
    }
  }

  @Test
  void everyRowHasAKnownStatusAndEveryThrowsRowAnAlternative() {
    List<Row> rows = rows();
    assertThat(rows).as("rows parsed from docs/builder-methods.md").hasSizeGreaterThan(70);
    for (Row r : rows) {
      assertThat(r.status()).as("status of %s", r.methods())
          .matches("works|throws: .+|not applicable: .+|not in Tern.*");
      if (r.throwsUnsupported()) {
        assertThat(alternatives(r)).as("alternatives given after 'instead:' for %s", r.methods()).isNotEmpty();
      }
      if (r.works()) {
        assertThat(r.tests()).as("the test proving %s", r.methods()).isNotBlank();
      }
    }
  }

  /** The code spans after "instead:" in a throws row's status. */
  private static List<String> alternatives(Row r) {
    int at = r.status().indexOf("instead:");
    List<String> out = new ArrayList<>();
    if (at < 0) {
      return out;
    }
    Matcher m = CODE.matcher(r.status().substring(at));
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  @Test
  void everyThrowsRowThrowsNamingTernAndTheAlternative() throws Exception {
    int checked = 0;
    for (Class<?> base : List.of(ManagedChannelBuilder.class, ServerBuilder.class)) {
      Map<String, Method> methods = methodsOf(base);
      for (Map.Entry<String, Row> e : tableOf(base).entrySet()) {
        Row r = e.getValue();
        if (!r.throwsUnsupported()) {
          continue;
        }
        Method declared = methods.get(e.getKey());
        Throwable thrown = call(declared, builderFor(base));
        assertThat(thrown).as("%s, which the table says throws", e.getKey())
            .isInstanceOf(UnsupportedOperationException.class);
        assertThat(thrown.getMessage()).as("message of %s", e.getKey()).contains("Tern");
        for (String alternative : alternatives(r)) {
          assertThat(thrown.getMessage()).as("message of %s names the alternative the table gives", e.getKey())
              .contains(alternative);
        }
        checked++;
      }
    }
    assertThat(checked).as("throws rows checked").isPositive();
  }

  @Test
  void noWorksRowThrowsUnsupported() throws Exception {
    List<String> inProgress = new ArrayList<>();
    for (Class<?> base : List.of(ManagedChannelBuilder.class, ServerBuilder.class)) {
      Map<String, Method> methods = methodsOf(base);
      for (Map.Entry<String, Row> e : tableOf(base).entrySet()) {
        Method declared = methods.get(e.getKey());
        if (!e.getValue().works() || Modifier.isStatic(declared.getModifiers()) || declared.getName().equals("build")) {
          continue;
        }
        if (e.getValue().inProgress()) {
          inProgress.add(base.getSimpleName() + "." + e.getKey());
          continue;
        }
        Throwable thrown = call(declared, builderFor(base));
        assertThat(thrown instanceof UnsupportedOperationException)
            .as("%s, which the table says works, threw %s", e.getKey(), thrown).isFalse();
      }
    }
    System.out.println("builder-methods.md rows in progress (not checked yet): " + inProgress);
  }

  @Test
  void everyWorksRowNamesATestThatExists() throws Exception {
    List<String> inProgress = new ArrayList<>();
    int checked = 0;
    for (Row r : rows()) {
      if (!r.works()) {
        continue;
      }
      for (String ref : r.tests().split(";")) {
        ref = ref.trim();
        if (ref.contains(IN_PROGRESS)) {
          inProgress.add(r.methods() + " -> " + ref);
          continue;
        }
        Matcher m = TEST_REF.matcher(ref);
        assertThat(m.matches()).as("test of %s as 'module: TestClass#method', was '%s'", r.methods(), ref).isTrue();
        String module = m.group(1);
        String testClass = m.group(2);
        String method = m.group(3);
        assertThat(method).as("test method named for %s in '%s'", r.methods(), ref).isNotNull();
        if (module.equals("rpc-api")) {
          Class<?> c = rpcApiTestClass(testClass);
          assertThat(hasMethod(c, method)).as("%s#%s, named for %s", testClass, method, r.methods()).isTrue();
        } else {
          assertThat(sourceDeclares(module, testClass, method)).as("%s: %s#%s, named for %s", module, testClass,
              method, r.methods()).isTrue();
        }
        checked++;
      }
    }
    assertThat(checked).as("test references checked").isGreaterThan(50);
    System.out.println("builder-methods.md tests in progress (not checked yet): " + inProgress);
  }

  private static Class<?> rpcApiTestClass(String simpleName) {
    for (String pkg : List.of("dev.tern.rpc.", "dev.tern.rpc.spi.", "dev.tern.rpc.inprocess.")) {
      try {
        return Class.forName(pkg + simpleName);
      } catch (ClassNotFoundException notHere) {
        // try the next package
      }
    }
    throw new AssertionError("no test class " + simpleName + " in rpc-api");
  }

  private static boolean hasMethod(Class<?> c, String name) {
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      for (Method m : k.getDeclaredMethods()) {
        if (m.getName().equals(name)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether {@code module}'s sources have {@code TestClass.java} declaring {@code void method(}, in
   * it or in a class it extends (looked up by simple name anywhere in the repository).
   */
  private static boolean sourceDeclares(String module, String testClass, String method) throws IOException {
    Path moduleRoot = repoRoot().resolve(module);
    assertThat(moduleRoot).as("module %s", module).isDirectory();
    Optional<Path> file = find(moduleRoot, testClass);
    assertThat(file).as("%s.java in %s", testClass, module).isPresent();
    Pattern declares = Pattern.compile("void\\s+" + Pattern.quote(method) + "\\s*\\(");
    Path current = file.get();
    for (int depth = 0; depth < 10 && current != null; depth++) {
      String src = Files.readString(current, StandardCharsets.UTF_8);
      if (declares.matcher(src).find()) {
        return true;
      }
      String simpleName = current.getFileName().toString().replace(".java", "");
      Matcher ext = Pattern.compile("class\\s+" + simpleName + "(?:<[^>]*>)?\\s+extends\\s+(\\w+)").matcher(src);
      current = ext.find() ? find(repoRoot(), ext.group(1)).orElse(null) : null;
    }
    return false;
  }

  /** The first {@code simpleName.java} under {@code root} in a source tree (build output left out). */
  private static Optional<Path> find(Path root, String simpleName) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.getFileName().toString().equals(simpleName + ".java"))
          .filter(p -> {
            String rel = root.relativize(p).toString().replace('\\', '/');
            return rel.contains("src/") && !rel.contains("target/");
          }).findFirst();
    }
  }

  private static Supplier<Object> builderFor(Class<?> base) {
    return base == ManagedChannelBuilder.class ? () -> TernChannelBuilder.forTarget("localhost:1")
        : () -> TernServerBuilder.forPort(0);
  }

  /** Calls Tern's implementation of {@code declared} with harmless arguments; what it threw, or null. */
  private static Throwable call(Method declared, Supplier<Object> builders) throws Exception {
    Object builder = builders.get();
    Method m = null;
    for (Class<?> c = builder.getClass(); c != null && m == null; c = c.getSuperclass()) {
      try {
        m = c.getDeclaredMethod(declared.getName(), declared.getParameterTypes());
      } catch (NoSuchMethodException notHere) {
        // look in the superclass
      }
    }
    assertThat(m).as("implementation of %s", declared).isNotNull();
    m.setAccessible(true);
    try {
      m.invoke(builder, arguments(m.getParameterTypes()));
      return null;
    } catch (InvocationTargetException e) {
      return e.getCause();
    }
  }

  private static Object[] arguments(Class<?>[] types) {
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      Class<?> t = types[i];
      if (t == int.class) {
        args[i] = 1;
      } else if (t == long.class) {
        args[i] = 1L;
      } else if (t == boolean.class) {
        args[i] = true;
      } else if (t == TimeUnit.class) {
        args[i] = TimeUnit.SECONDS;
      } else if (t == String.class) {
        args[i] = "x";
      } else if (t.isArray()) {
        args[i] = java.lang.reflect.Array.newInstance(t.getComponentType(), 0);
      } else if (t == List.class) {
        args[i] = List.of();
      } else if (t == Map.class) {
        args[i] = Map.of();
      } else if (t == java.util.concurrent.Executor.class) {
        args[i] = (java.util.concurrent.Executor) Runnable::run;
      } else if (t == io.grpc.NameResolver.Args.Key.class) {
        args[i] = io.grpc.NameResolver.Args.Key.create("builder-method-table");
      } else {
        args[i] = null;
      }
    }
    return args;
  }
}
