def log = new File(basedir, 'build.log').text
assert log.contains('Tests run: 1, Failures: 0, Errors: 0, Skipped: 0')
// The app compiled only its own proto: shared's classes come from shared's jar.
assert new File(basedir, 'app/target/generated-sources/tern/grpc/com/example/app/WalletGrpc.java').isFile()
assert !new File(basedir, 'app/target/generated-sources/tern/java/com/example/shared').exists()
assert new File(basedir, 'app/target/tern/main/dependency-protos/shared/money.proto').isFile()
return true
