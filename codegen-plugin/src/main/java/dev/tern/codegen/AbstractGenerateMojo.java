package dev.tern.codegen;

import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.palantir.javapoet.JavaFile;
import dev.tern.codegen.stub.GrpcGenerator;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.inject.Inject;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.descriptor.PluginDescriptor;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.RepositorySystemSession;

/**
 * Shared work of {@code generate} and {@code test-generate}: resolve protoc, build the include
 * path, run protoc for messages and a descriptor set, generate stubs from the descriptor set,
 * add the output folders to the compile roots; skip all of it when the fingerprint of the
 * inputs is unchanged.
 */
abstract class AbstractGenerateMojo extends AbstractMojo {
  private static final Set<String> ALL_SCOPES =
      Set.of("compile", "provided", "system", "runtime", "test");

  /** The project being built. */
  @Parameter(defaultValue = "${project}", readonly = true, required = true)
  protected MavenProject project;

  /** Maven's resolver session (local repository, offline flag, mirrors). */
  @Parameter(defaultValue = "${repositorySystemSession}", readonly = true, required = true)
  protected RepositorySystemSession repoSession;

  /** This plugin, for its version and jar (part of the fingerprint). */
  @Parameter(defaultValue = "${plugin}", readonly = true, required = true)
  protected PluginDescriptor plugin;

  /** Maven's resolver (injected by Maven's JSR-330 container). */
  @Inject
  protected RepositorySystem repositorySystem;

  /** Further include paths for imports (searched after the source folders). */
  @Parameter
  protected List<File> includeDirectories = new ArrayList<>();

  /** Whether {@code .proto} files inside dependency jars are importable. */
  @Parameter(property = "tern.includeDependencyProtos", defaultValue = "true")
  protected boolean includeDependencyProtos;

  /** The protoc version: the artifact {@code com.google.protobuf:protoc:<version>:exe}. */
  @Parameter(property = "tern.protocVersion", defaultValue = "4.36.2")
  protected String protocVersion;

  /** The protoc classifier; detected from {@code os.name} and {@code os.arch} when empty. */
  @Parameter(property = "tern.protocClassifier")
  protected String protocClassifier;

  /** Generate protobuf-javalite messages and lite stubs (Android). */
  @Parameter(property = "tern.lite", defaultValue = "false")
  protected boolean lite;

  /** Generate the service stubs ({@code XxxGrpc}); false generates messages only. */
  @Parameter(property = "tern.generateStubs", defaultValue = "true")
  protected boolean generateStubs;

  /** Skip this goal. */
  @Parameter(property = "tern.skip", defaultValue = "false")
  protected boolean skip;

  /** The folders holding the {@code .proto} files to compile. */
  protected abstract List<File> sourceRoots();

  /** Where message sources go. */
  protected abstract File javaOutput();

  /** Where stub sources go. */
  protected abstract File grpcOutput();

  /** A short name for log lines and the work folder: {@code main} or {@code test}. */
  protected abstract String scope();

  /** Registers a generated folder with the project. */
  protected abstract void addSourceRoot(File dir);

  /** The dependency files to search for protos (class path of the scope). */
  protected abstract List<Path> dependencyFiles();

  /** This project's own compiled classes visible to the generated code (none for main). */
  protected List<Path> ownClasses() {
    return List.of();
  }

  @Override
  public void execute() throws MojoExecutionException, MojoFailureException {
    if (skip) {
      getLog().info("Tern codegen (" + scope() + "): skipped");
      return;
    }
    try {
      run();
    } catch (IOException e) {
      throw new MojoExecutionException("Tern codegen (" + scope() + ") failed: " + e, e);
    }
  }

  private void run() throws IOException, MojoExecutionException, MojoFailureException {
    List<Path> roots = new ArrayList<>();
    Set<String> protos = new LinkedHashSet<>();
    for (File root : sourceRoots()) {
      List<String> found = ProtoPaths.protosUnder(root.toPath());
      if (!found.isEmpty()) {
        roots.add(root.toPath().toAbsolutePath());
        protos.addAll(found);
      }
    }
    if (protos.isEmpty()) {
      getLog().info("Tern codegen (" + scope() + "): no .proto files in " + sourceRoots());
      return;
    }
    Path work = Path.of(project.getBuild().getDirectory(), "tern", scope());
    Path javaOut = javaOutput().toPath();
    Path grpcOut = grpcOutput().toPath();
    String classifier = protocClassifier == null || protocClassifier.isBlank()
        ? ProtocArtifact.classifier(System.getProperty("os.name"), System.getProperty("os.arch"))
        : protocClassifier;
    List<Path> deps = includeDependencyProtos ? dependencyFiles() : List.of();
    String fingerprint = fingerprint(roots, deps, classifier, javaOut, grpcOut);
    Path fingerprintFile = work.resolve("fingerprint");
    if (Fingerprint.matches(fingerprintFile, fingerprint)
        && Files.isDirectory(javaOut) && (!generateStubs || Files.isDirectory(grpcOut))) {
      getLog().info("Tern codegen (" + scope() + "): " + protos.size()
          + " proto file(s) unchanged, skipping protoc and stub generation");
      addRoots(javaOut, grpcOut);
      return;
    }
    Files.deleteIfExists(fingerprintFile);
    List<Path> includes = new ArrayList<>(roots);
    for (File dir : includeDirectories) {
      includes.add(dir.toPath().toAbsolutePath());
    }
    Path depProtos = work.resolve("dependency-protos");
    includes.addAll(ProtoPaths.extractFromDependencies(deps, depProtos));
    includes.add(depProtos);
    includes.add(ProtoPaths.extractFallback(work.resolve("fallback-protos")));

    Path protoc = ProtocArtifact.resolve(repositorySystem, repoSession,
        project.getRemoteProjectRepositories(), protocVersion, classifier);
    ProtoPaths.deleteTree(javaOut);
    ProtoPaths.deleteTree(grpcOut);
    Files.createDirectories(javaOut);
    Path descriptorSet = work.resolve("descriptor-set.desc");
    List<String> protocInputs = new ArrayList<>(protos);
    List<Path> classPath = new ArrayList<>(ownClasses());
    classPath.addAll(artifactFiles(ALL_SCOPES));
    if (TernOptionsProto.mustCompile(roots, protos, classPath)) {
      getLog().info("Tern codegen (" + scope() + "): no dependency provides the compiled "
          + TernOptionsProto.PATH + "; compiling it into this project");
      protocInputs.add(TernOptionsProto.PATH);
    }
    new Protoc(protoc, getLog()).compile(includes, protocInputs, javaOut, lite,
        descriptorSet, work.resolve("protoc-args.txt"));
    int services = 0;
    if (generateStubs) {
      Files.createDirectories(grpcOut);
      FileDescriptorSet set = FileDescriptorSet.parseFrom(Files.readAllBytes(descriptorSet));
      List<JavaFile> files;
      try {
        files = new GrpcGenerator(lite).generate(set, protos);
      } catch (IllegalArgumentException e) {
        throw new MojoFailureException("Tern codegen: " + e.getMessage(), e);
      }
      for (JavaFile file : files) {
        file.writeTo(grpcOut);
      }
      services = files.size();
    }
    addRoots(javaOut, grpcOut);
    Files.writeString(fingerprintFile, fingerprint + "\n");
    getLog().info("Tern codegen (" + scope() + "): compiled " + protos.size()
        + " proto file(s) with protoc " + protocVersion + " (" + classifier + "), generated "
        + services + " service stub class(es)");
  }

  private String fingerprint(List<Path> roots, List<Path> deps, String classifier,
      Path javaOut, Path grpcOut) throws IOException {
    Fingerprint f = new Fingerprint()
        .add("plugin", plugin.getVersion())
        .add("protoc", protocVersion + ":" + classifier)
        .add("lite", lite)
        .add("stubs", generateStubs)
        .add("javaOut", javaOut)
        .add("grpcOut", grpcOut);
    Artifact self = plugin.getPluginArtifact();
    if (self != null && self.getFile() != null) {
      Path pluginFile = self.getFile().toPath();
      if (Files.isDirectory(pluginFile)) {
        f.addTreeIdentity("pluginClasses", pluginFile);
      } else {
        f.addFiles("pluginJar", List.of(pluginFile));
      }
    }
    for (Path root : roots) {
      f.addProtoTree(root);
    }
    for (File dir : includeDirectories) {
      f.addProtoTree(dir.toPath().toAbsolutePath());
    }
    return f.addFiles("dependency", deps).value();
  }

  private void addRoots(Path javaOut, Path grpcOut) {
    addSourceRoot(javaOut.toFile());
    if (generateStubs) {
      addSourceRoot(grpcOut.toFile());
    }
  }

  /** The files of the project's resolved artifacts in the given scopes, in class-path order. */
  protected List<Path> artifactFiles(Set<String> scopes) {
    List<Path> files = new ArrayList<>();
    for (Artifact a : project.getArtifacts()) {
      if (a.getFile() != null && scopes.contains(a.getScope())) {
        files.add(a.getFile().toPath());
      }
    }
    return files;
  }
}
