def log = new File(basedir, 'build.log').text
assert log.contains('Tests run: 2, Failures: 0, Errors: 0, Skipped: 0')
def stock = new File(basedir, 'src/main/java/com/example/compat/stock/RelayGrpc.java').text
def tern = new File(basedir, 'target/generated-sources/tern/grpc/com/example/compat/tern/RelayGrpc.java').text
// Two different generators really produced the two sides.
assert stock.contains('Static method descriptors that strictly reflect the proto')
assert !tern.contains('Static method descriptors that strictly reflect the proto')
return true
