// The build passed (its tests ran the stubs); check what the plugin wrote and said.
def log = new File(basedir, 'build.log').text
assert log.contains('Tern codegen (main): compiled 2 proto file(s) with protoc')
assert log.contains('generated 1 service stub class(es)')
// Compiled once, into main: the test protos reuse main's compiled options classes.
assert log.count('compiling it into this project') == 1 : 'tern/options.proto not compiled exactly once'
assert log.contains('Tern codegen (main): no dependency provides the compiled tern/options.proto')
assert !new File(basedir, 'target/generated-test-sources/tern/java/dev/tern/rpc/proto').exists()
assert log.contains('Tests run: 4, Failures: 0, Errors: 0, Skipped: 0')
assert new File(basedir, 'target/generated-sources/tern/grpc/demo/calc/CalcGrpc.java').isFile()
assert new File(basedir, 'target/generated-test-sources/tern/grpc/demo/probe/ProbeGrpc.java').isFile()
assert new File(basedir, 'target/generated-sources/tern/java/dev/tern/rpc/proto/TernMethodPriority.java').isFile()
return true
