// The build failed in the Android API check, for exactly the two calls Android 8.0 lacks.
def log = new File(basedir, 'build.log').text
assert log.contains('Undefined reference: java.util.List java.util.List.of(Object, Object)') : 'List.of was not reported'
assert log.contains('Undefined reference: java.nio.ByteBuffer java.nio.ByteBuffer.flip()') : 'ByteBuffer.flip() was not reported'
assert !log.contains('Record.<init>') : 'records are desugared by D8 and must be let through'
assert log.contains('animal-sniffer-maven-plugin') && log.contains('Signature errors found') : 'the build did not fail in the API check'
return true
