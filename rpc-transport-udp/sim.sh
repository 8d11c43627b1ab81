#!/bin/sh
# Runs the UDP protocol simulator (dev.tern.transport.udp.sim.SimRunner) from the repository root.
# Build first: mvn -q -pl rpc-transport-udp -am -DskipTests test-compile
set -e
cd "$(dirname "$0")/.."
PICOCLI="${HOME}/.m2/repository/info/picocli/picocli/4.7.7/picocli-4.7.7.jar"
exec java -Xss4m -cp "rpc-transport-udp/target/classes:rpc-transport-udp/target/test-classes:netlab/target/classes:${PICOCLI}" \
  dev.tern.transport.udp.sim.SimRunner "$@"
