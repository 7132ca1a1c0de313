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
case ${1:-} in -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac

cd "$(dirname "$0")/.."
workloads=("$@")
[[ ${#workloads[@]} -gt 0 ]] || workloads=(same-token new-objects same-token new-objects)
run=${RUN:-16} window=${WINDOW:-10} prime=${PRIME:-60} connections=${CONNECTIONS:-32}
port_base=${PORT_BASE:-19700} db_host=${DB_HOST:-127.0.0.1} db_port=${DB_PORT:-5432}
gateway_jar=${GATEWAY_JAR:-gateway/target/fencegate.jar}
loadtest_jar=loadtest/target/fencegate-loadtest.jar
store_jar=demo/target/fencegate-demo.jar
(( window + 5 < run )) || { echo "WINDOW must end before the run: WINDOW + 5 < RUN" >&2; exit 2; }
database=fencegate_cost_by_process
source loadtest/lib/one-gateway.sh

# CPU ms of every process now, as "pid ms" lines (a process gone meanwhile is left out).
cpu_all() {
  local stat line fields
  for stat in /proc/[0-9]*/stat; do
    { read -r line <"$stat"; } 2>/dev/null || continue
    read -ra fields <<<"${line##*) }"
    stat=${stat#/proc/}
    echo "${stat%/stat} $(( (fields[11] + fields[12]) * 1000 / hz ))"
  done
}
load() {  # workload seconds token-args...
  java -jar "$loadtest_jar" run --url "http://127.0.0.1:$gateway_port" --workload "$1" --prefix "/cost/$1" \
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
  jit_before=$(jit_ticks)
  if [[ ${PERF:-} == 1 ]]; then
    perf record -a -g -F 999 -o "$out/perf-$n-$workload.data" -- sleep "$window" >/dev/null 2>&1
  else
    sleep "$window"
  fi
  cpu_all >"$out/$n-after"
  jit=$(( ($(jit_ticks) - jit_before) * 1000 / hz ))
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
