def log = new File(basedir, 'build.log').text
assert log.contains('Tests run: 1, Failures: 0, Errors: 0, Skipped: 0')
def stub = new File(basedir, 'target/generated-sources/tern/grpc/demo/lite/PingerGrpc.java').text
assert stub.contains('ProtoLiteUtils.marshaller')
return true
