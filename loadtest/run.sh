#!/usr/bin/env bash
# The standard comparison: direct, via nginx and via the gateway, interleaved; report in
# loadtest/reports/<timestamp>/. Arguments go to `compare` (try --help, --quick, --workload raises).
# Builds when a jar is missing or older than a source; installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

loadtest_jar=loadtest/target/fencegate-loadtest.jar
gateway_jar=gateway/target/fencegate.jar
store_jar=demo/target/fencegate-demo.jar

stale() {
  [[ ! -f "$1" ]] || [[ -n "$(find "${@:2}" -newer "$1" -type f -print -quit 2>/dev/null)" ]]
}
if stale "$loadtest_jar" pom.xml loadtest/pom.xml loadtest/src \
   || stale "$gateway_jar" pom.xml gateway/pom.xml gateway/src migrations/pom.xml migrations/src \
   || stale "$store_jar" demo/pom.xml demo/src local/pom.xml local/src; then
  echo "building (./mvnw -q -DskipTests package)..." >&2
  ./mvnw -q -DskipTests package
fi

nginx_hint=yes
for arg in "$@"; do
  case "$arg" in --no-nginx|--nginx|--nginx=*) nginx_hint=no ;; esac
done
if [[ $nginx_hint == yes ]] && ! command -v nginx >/dev/null 2>&1 && [[ ! -x /usr/sbin/nginx ]]; then
  echo "nginx not found: the WebDAV store and the nginx reference proxy will be left out." >&2
  echo "  to include them: apt-get install -y nginx" >&2
fi

exec java -jar "$loadtest_jar" compare "$@"
