# Sourced by the load-test scripts that measure one gateway. Expects port_base, db_host, db_port,
# gateway_jar, loadtest_jar, store_jar and database (a name for the gateway's own database) to be
# set, and the working directory to be the repository. Builds the jars if one is missing, checks
# that the ports port_base (store), +1 (gateway) and +2 (admin) are free, creates the database on
# the PostgreSQL at db_host:db_port, starts the do-nothing store and the gateway (-Xmx256m) and waits
# until it is ready. Sets out (the log folder), store and gateway (their pids), gateway_port,
# admin_port and hz; on exit, stops both and drops the database. jit_ticks gives the CPU ticks of the
# gateway's JIT compiler threads so far.
[[ -f $loadtest_jar && -f $gateway_jar && -f $store_jar ]] || ./mvnw -q -DskipTests package
store_port=$port_base gateway_port=$((port_base + 1)) admin_port=$((port_base + 2))
for port in "$store_port" "$gateway_port" "$admin_port"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is in use: choose others with PORT_BASE" >&2
    exit 1
  fi
done

sql() { psql -qAtX -h "$db_host" -p "$db_port" -U postgres -d postgres -c "$1"; }
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  sql "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
}
trap cleanup EXIT
out=$(mktemp -d "/tmp/$database.XXXXXX")
sql "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1
sql "CREATE DATABASE $database" >/dev/null

java -jar "$store_jar" store --listen "127.0.0.1:$store_port" --discard >"$out/store.log" 2>&1 &
store=$!
pids+=($store)
# With PERF=1 (cost-by-process.sh), the JIT's code map is written to /tmp/perf-<pid>.map as the
# gateway exits, and frame pointers kept, so that perf report names the gateway's Java frames.
perf_map=()
[[ ${PERF:-} == 1 ]] && perf_map=(-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer)
java -Xmx256m "${perf_map[@]}" -jar "$gateway_jar" serve --listen "127.0.0.1:$gateway_port" --admin-listen "127.0.0.1:$admin_port" \
  --upstream "http://127.0.0.1:$store_port" --db-url "jdbc:postgresql://$db_host:$db_port/$database" --db-user postgres \
  --access-log off >"$out/gateway.log" 2>&1 &
gateway=$!
pids+=($gateway)
source loadtest/lib/await-ready.sh
await_ready "$admin_port" "see $out/gateway.log"

hz=$(getconf CLK_TCK)
jit_ticks() {
  local task line fields total=0
  for task in /proc/"$gateway"/task/*; do
    [[ $(cat "$task/comm" 2>/dev/null) =~ ^C[12]\ CompilerThre ]] || continue
    { read -r line <"$task/stat"; } 2>/dev/null || continue
    read -ra fields <<<"${line##*) }"
    total=$((total + fields[11] + fields[12]))
  done
  echo "$total"
}
