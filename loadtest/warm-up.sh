#!/usr/bin/env bash
# A gateway from a cold start, run after run: its saturation throughput and the share of its CPU
# its JIT compiler threads took in each run (from /proc). One do-nothing store and one gateway with
# a database of its own on the PostgreSQL at DB_HOST:DB_PORT, created for the run and dropped after
# it; between runs a pause, in which the admin port's /metrics is read, as the comparison does.
#   loadtest/warm-up.sh [workload]    (default: new-objects)
# Environment: RUNS (10), RUN (measured seconds per run, 6, after 1 s of warm-up), PAUSE (seconds, 5),
# CONNECTIONS (32), PORT_BASE (19690: store, gateway, admin), DB_HOST (127.0.0.1), DB_PORT (5432),
# GATEWAY_JAR (default gateway/target/fencegate.jar).
set -euo pipefail
case ${1:-} in -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
workload=${1:-new-objects}
runs=${RUNS:-10} run=${RUN:-6} pause=${PAUSE:-5} connections=${CONNECTIONS:-32}
port_base=${PORT_BASE:-19690} db_host=${DB_HOST:-127.0.0.1} db_port=${DB_PORT:-5432}
loadtest_jar=loadtest/target/fencegate-loadtest.jar
gateway_jar=${GATEWAY_JAR:-gateway/target/fencegate.jar}
store_jar=demo/target/fencegate-demo.jar
database=fencegate_warm_up
source loadtest/lib/one-gateway.sh

# CPU ticks of the gateway process.
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$gateway/stat"; }
echo "workload $workload, $connections connections, runs of $run s with $pause s between; logs in $out"
for i in $(seq 1 "$runs"); do
  all0=$(ticks) jit0=$(jit_ticks)
  # Each run takes its first token from the clock, so raises go on above the run before.
  java -jar "$loadtest_jar" run --url "http://127.0.0.1:$gateway_port" --workload "$workload" --prefix "/warm-up/$workload" \
    --mode SATURATE --connections "$connections" --warmup 1 --duration "$run" >"$out/run-$i.json" || true  # a run with errors exits 1; its report counts them
  all1=$(ticks) jit1=$(jit_ticks)
  python3 - "$out/run-$i.json" "$i" $((all1 - all0)) $((jit1 - jit0)) "$hz" <<'PY'
import json, sys
result, i, all_ticks, jit_ticks, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
d = json.load(open(result))
print(f"run {i}: {d['throughput']:,.0f} req/s ({d['counts']['errors']} errors), gateway CPU {1000 * all_ticks / hz:,.0f} ms, "
      f"JIT compiler threads {1000 * jit_ticks / hz:,.0f} ms ({100 * jit_ticks / max(1, all_ticks):.0f}%)")
PY
  curl -fs "http://127.0.0.1:$admin_port/metrics" >/dev/null || true
  [[ $i == "$runs" ]] || sleep "$pause"
done
