// Checks what the example resolved: the published Tern artifacts as a user's project sees them.
def repo = new File(exampleRepo, 'dev/tern')
def problems = []
['tern-bom', 'rpc-api', 'rpc-transport-grpc-bridge', 'rpc-transport-tcp', 'rpc-transport-quic', 'rpc-transport-udp', 'netlab',
 'transport-conformance', 'codegen-plugin'].each { name ->
  def dir = new File(repo, "${name}/${ternVersion}")
  def pom = dir.listFiles()?.find { it.name.endsWith('.pom') }
  if (pom == null) { problems << "${name}: no pom in ${dir}"; return }
  def text = pom.text
  if (text.contains('<parent>')) problems << "${name}: published pom still names a parent"
  if (text.contains('${')) problems << "${name}: published pom has an unresolved \${...}"
  ['licenses', 'scm', 'developers', 'url'].each { tag ->
    if (!(text =~ "<${tag}[ >]")) problems << "${name}: published pom lacks <${tag}>"
  }
  if (name != 'tern-bom') {
    def jar = dir.listFiles().find { it.name == "${name}-${ternVersion}.jar" }
    if (jar == null) { problems << "${name}: no jar in ${dir}"; return }
    def manifest = new java.util.jar.JarFile(jar).manifest.mainAttributes
    if (!manifest.getValue('Automatic-Module-Name')) problems << "${name}: no Automatic-Module-Name"
  }
}
def log = new File(basedir, 'build.log').text
if (!log.contains('Tests run: 5, Failures: 0, Errors: 0, Skipped: 0')) {
  problems << 'the example did not run its 5 tests cleanly (see build.log)'
}
if (!problems.isEmpty()) throw new AssertionError(problems.join('\n'))
return true
