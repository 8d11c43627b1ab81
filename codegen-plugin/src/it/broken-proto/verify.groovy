// protoc's complaint must reach the user with the file, line and column of the mistake.
def log = new File(basedir, 'build.log').text
def bad = new File(basedir, 'src/main/proto/demo/bad.proto').canonicalPath
assert log.contains("protoc failed: ${bad}:6:3: \"strin\" is not defined.") : 'no file:line:col in the failure'
assert log.contains('BUILD FAILURE')
return true
