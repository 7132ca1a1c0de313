#!/usr/bin/env bash
# Where the machine's CPU goes per write, process by process, with one gateway at saturation: the
# gateway, the load generator, the do-nothing store and PostgreSQL (every one of its processes), from
# /proc over a window in the middle of each run, the gateway's JIT compiler threads apart. What a
# workload costs besides the gateway's own work shows here: PostgreSQL's, and the load generator's
# and the store's at the rate the gateway allows.
# One do-nothing store and one gateway with a database of its own on the PostgreSQL at
# DB_HOST:DB_PORT, created for the run and dropped after it; a load generator of its own per run.
#   loadtest/cost-by-process.sh [workload ...]    (default: same-token new-objects same-token new-objects)
# Environment: RUN (seconds at saturation per run, 16), WINDOW (seconds measured from the fifth, 10),
# PRIME (seconds of each workload, unmeasured, before its first run, 60), CONNECTIONS (32),
# PORT_BASE (19700: store, gateway, admin), DB_HOST (127.0.0.1), DB_PORT (5432),
# GATEWAY_JAR (default gateway/target/fencegate.jar), PERF (1: a system-wide `perf record -g` of each
# window into the log folder, perf-<n>-<workload>.data).
set -euo pipefail

cd "$(dirname "$0")/.."
workloads=("$@")
[[ ${#workloads[@]} -gt 0 ]] || workloads=(same-token new-objects same-token new-objects)
run=${RUN:-16} window=${WINDOW:-10} prime=${PRIME:-60} connections=${CONNECTIONS:-32}
port_base=${PORT_BASE:-19700} db_host=${DB_HOST:-127.0.0.1} db_port=${DB_PORT:-5432}
gateway_jar=${GATEWAY_JAR:-gateway/target/fencegate.jar}
loadtest_jar=loadtest/target/fencegate-loadtest.jar
store_jar=demo/target/fencegate-demo.jar
(( window + 5 < run )) || { echo "WINDOW must end before the run: WINDOW + 5 < RUN" >&2; exit 2; }
[[ -f $loadtest_jar && -f $store_jar && -f $gateway_jar ]] || ./mvnw -q -DskipTests package

for port in $(seq "$port_base" $((port_base + 2))); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is in use: choose others with PORT_BASE" >&2
    exit 1
  fi
done

database=fencegate_cost_by_process
sql() { psql -qAtX -h "$db_host" -p "$db_port" -U postgres -d postgres -c "$1"; }
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  sql "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
}
trap cleanup EXIT
out=$(mktemp -d /tmp/fencegate-cost.XXXXXX)

java -jar "$store_jar" store --listen "127.0.0.1:$port_base" --discard >"$out/store.log" 2>&1 &
store=$!
pids+=($store)
sql "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1
sql "CREATE DATABASE $database" >/dev/null
java -Xmx256m -jar "$gateway_jar" serve --listen "127.0.0.1:$((port_base + 1))" --admin-listen "127.0.0.1:$((port_base + 2))" \
  --upstream "http://127.0.0.1:$port_base" --db-url "jdbc:postgresql://$db_host:$db_port/$database" --db-user postgres \
  --access-log off >"$out/gateway.log" 2>&1 &
gateway=$!
pids+=($gateway)
source loadtest/lib/await-ready.sh
await_ready $((port_base + 2)) "see $out/gateway.log"

# CPU ms of every process now, as "pid ms" lines (a process gone meanwhile is left out).
hz=$(getconf CLK_TCK)
cpu_all() {
  local stat line fields
  for stat in /proc/[0-9]*/stat; do
    { read -r line <"$stat"; } 2>/dev/null || continue
    read -ra fields <<<"${line##*) }"
    stat=${stat#/proc/}
    echo "${stat%/stat} $(( (fields[11] + fields[12]) * 1000 / hz ))"
  done
}
# CPU ms of the gateway's JIT compiler threads now.
jit_ms() {
  local task line fields total=0
  for task in "/proc/$gateway"/task/*; do
    [[ $(cat "$task/comm" 2>/dev/null) == C[12]\ Compiler* ]] || continue
    { read -r line <"$task/stat"; } 2>/dev/null || continue
    read -ra fields <<<"${line##*) }"
    total=$(( total + (fields[11] + fields[12]) * 1000 / hz ))
  done
  echo "$total"
}
load() {  # workload seconds token-args...
  java -jar "$loadtest_jar" run --url "http://127.0.0.1:$((port_base + 1))" --workload "$1" --prefix "/cost/$1" \
    --connections "$connections" --mode SATURATE --warmup 1 --duration "$2" "${@:3}"
}
tokens() { case $1 in same-token|mixed) echo --token-base "$(( $(date +%s%N) / 1000 ))" ;; esac; }

echo "gateway $gateway_jar, $connections connections at saturation, $window s measured in runs of $run s; logs in $out"
declare -A primed=()
n=0
for workload in "${workloads[@]}"; do
  n=$((n + 1))
  if [[ -z ${primed[$workload]:-} ]]; then
    # shellcheck disable=SC2046
    load "$workload" "$prime" $(tokens "$workload") >/dev/null 2>&1 || true
    primed[$workload]=1
  fi
  # shellcheck disable=SC2046
  load "$workload" "$run" $(tokens "$workload") >"$out/$n-$workload.json" 2>"$out/$n-$workload.err" &
  loader=$!
  sleep 5
  cpu_all >"$out/$n-before"
  jit_before=$(jit_ms)
  if [[ ${PERF:-} == 1 ]]; then
    perf record -a -g -F 999 -o "$out/perf-$n-$workload.data" -- sleep "$window" >/dev/null 2>&1
  else
    sleep "$window"
  fi
  cpu_all >"$out/$n-after"
  jit=$(( $(jit_ms) - jit_before ))
  declare -A role=()
  for pid in $(awk '{ print $1 }' "$out/$n-after"); do
    args=$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null || true)
    comm=$( { cat "/proc/$pid/comm"; } 2>/dev/null || true)
    if [[ $pid == "$gateway" ]]; then
      role[$pid]=gateway
    elif [[ $args == *"$loadtest_jar"* ]]; then
      role[$pid]="load generator"
    elif [[ $pid == "$store" ]]; then
      role[$pid]=store
    elif [[ $comm == postgres* || $args == postgres:* ]]; then
      role[$pid]=PostgreSQL
    fi
  done
  roles=$(for pid in "${!role[@]}"; do echo "$pid ${role[$pid]}"; done)
  wait "$loader" || true
  python3 - "$out/$n-$workload.json" "$out/$n-before" "$out/$n-after" "$window" "$run" "$workload" "$roles" "$jit" <<'PY'
import json, sys
report, before_file, after_file, window, run, workload, roles, jit = sys.argv[1:]
def read(path):
    return {line.split()[0]: float(line.split()[1]) for line in open(path) if len(line.split()) == 2}
before, after = read(before_file), read(after_file)
role = {}
for line in roles.splitlines():
    pid, name = line.split(" ", 1)
    role[pid] = name
rate = json.load(open(report))["throughput"]
writes = rate * float(window)
totals = {}
for pid, ms in after.items():
    used = ms - before.get(pid, 0.0)
    if used > 0:
        name = role.get(pid, "other")
        totals[name] = totals.get(name, 0.0) + used
totals["gateway"] = totals.get("gateway", 0.0) - float(jit)
totals["gateway JIT"] = float(jit)
order = ["gateway", "gateway JIT", "load generator", "store", "PostgreSQL", "other"]
parts = ", ".join(f"{name} {totals.get(name, 0.0) * 1000 / writes:.1f}" for name in order)
print(f"{workload}: {rate:,.0f} req/s over {run} s; CPU us/write: {parts}; all {sum(totals.values()) * 1000 / writes:.1f}")
PY
done
