// Generates the same service with the stock protoc-gen-grpc-java into another Java package,
// so the tests can pair stock stubs with Tern's on one in-process channel.
def tools = new File(itTools)
def protoc = new File(tools, 'protoc.exe')
def plugin = new File(tools, 'protoc-gen-grpc-java.exe')
[protoc, plugin].each { assert it.isFile() && it.setExecutable(true) : "missing tool ${it}" }
def out = new File(basedir, 'src/main/java')
out.mkdirs()
def cmd = [protoc.path, "--plugin=protoc-gen-grpc-java=${plugin.path}",
           "--proto_path=${new File(basedir, 'src/stock-proto').path}",
           "--java_out=${out.path}", "--grpc-java_out=${out.path}", 'compat/relay_stock.proto']
def proc = cmd.execute()
def err = new StringBuilder()
proc.consumeProcessErrorStream(err)
assert proc.waitFor() == 0 : "stock protoc failed: ${err}"
return true
