// build.log holds all three invocations in order.
def log = new File(basedir, 'build.log').text
def compiled = log.count('Tern codegen (main): compiled 1 proto file(s)')
def skipped = log.count('Tern codegen (main): 1 proto file(s) unchanged, skipping protoc and stub generation')
assert compiled == 2 : "protoc should run in invocations 1 and 3, ran ${compiled} times"
assert skipped == 1 : "invocation 2 should skip, skipped ${skipped} times"
assert log.indexOf('unchanged, skipping') < log.lastIndexOf('compiled 1 proto file(s)')
assert new File(basedir, 'target/classes/demo/hello/GreeterGrpc.class').isFile()
return true
