#!/usr/bin/env bash
# Two gateway builds at the same time, each under the same fixed-rate load, so the noise of a shared
# machine hits both alike: for each round, each gateway's CPU per write and that of the PostgreSQL
# backends serving its database (from /proc; the title names the database, after the cluster name if
# one is set), the share of writes admitted at a held fence, and the fence check's mean, from its
# admin port. One do-nothing store serves both; each gateway has a database of its own on the
# PostgreSQL at DB_HOST:DB_PORT, created for the run and dropped after it.
#   loadtest/side-by-side.sh A.jar B.jar [workload ...]    (default: mixed)
# Environment: RATE (writes/s offered to each gateway, 1500; 0 saturates both at once), ROUND (seconds, 20), ROUNDS (4),
# PRIME (seconds of saturation before the first round, both at once, 25; 5 before each later one), CONNECTIONS (per gateway, 32),
# PORT_BASE (19680: store, then gateway and admin port of A, then of B), DB_HOST (127.0.0.1), DB_PORT (5432),
# ARGS_A and ARGS_B (more arguments to each gateway's serve command, split at spaces; with one jar given twice,
# they compare two configurations of one build), JVM_A and JVM_B (more JVM options to each gateway, as ARGS_A and ARGS_B),
# LOAD_ARGS (more arguments to every load run, as ARGS_A: --method DELETE, say).
set -euo pipefail

[[ $# -ge 2 && -f $1 && -f $2 ]] || { echo "usage: $0 A.jar B.jar [workload ...]" >&2; exit 2; }
jars=("$(realpath "$1")" "$(realpath "$2")")
shift 2
cd "$(dirname "$0")/.."
workloads=("$@")
[[ ${#workloads[@]} -gt 0 ]] || workloads=(mixed)
rate=${RATE:-1500} round=${ROUND:-20} rounds=${ROUNDS:-4} prime=${PRIME:-25} connections=${CONNECTIONS:-32}
port_base=${PORT_BASE:-19680} db_host=${DB_HOST:-127.0.0.1} db_port=${DB_PORT:-5432}
store_port=$port_base
loadtest_jar=loadtest/target/fencegate-loadtest.jar
store_jar=demo/target/fencegate-demo.jar
[[ -f $loadtest_jar && -f $store_jar ]] || ./mvnw -q -DskipTests package

for port in $(seq "$port_base" $((port_base + 4))); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is in use: choose others with PORT_BASE" >&2
    exit 1
  fi
done

databases=(fencegate_side_a fencegate_side_b)
sql() { psql -qAtX -h "$db_host" -p "$db_port" -U postgres -d postgres -c "$1"; }
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for db in "${databases[@]}"; do sql "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT
out=$(mktemp -d /tmp/fencegate-side.XXXXXX)

java -jar "$store_jar" store --listen "127.0.0.1:$store_port" --discard >"$out/store.log" 2>&1 &
pids+=($!)
gateways=()
read -ra extra_a <<<"${ARGS_A:-}"
read -ra extra_b <<<"${ARGS_B:-}"
read -ra jvm_a <<<"${JVM_A:-}"
read -ra jvm_b <<<"${JVM_B:-}"
for i in 0 1; do
  if [[ $i == 0 ]]; then extra=("${extra_a[@]}") jvm=("${jvm_a[@]}"); else extra=("${extra_b[@]}") jvm=("${jvm_b[@]}"); fi
  sql "DROP DATABASE IF EXISTS ${databases[$i]}" >/dev/null 2>&1
  sql "CREATE DATABASE ${databases[$i]}" >/dev/null
  java -Xmx256m "${jvm[@]}" -jar "${jars[$i]}" serve --listen "127.0.0.1:$((port_base + 1 + 2 * i))" \
    --admin-listen "127.0.0.1:$((port_base + 2 + 2 * i))" --upstream "http://127.0.0.1:$store_port" \
    --db-url "jdbc:postgresql://$db_host:$db_port/${databases[$i]}" --db-user postgres --access-log off "${extra[@]}" >"$out/gateway-$i.log" 2>&1 &
  gateways+=($!)
  pids+=($!)
done
source loadtest/lib/await-ready.sh
for i in 0 1; do
  await_ready $((port_base + 2 + 2 * i)) "${jars[$i]}, see $out/gateway-$i.log"
done

cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000 / hz }' "/proc/$1/stat"; }
# CPU of the PostgreSQL backends serving one database, ms (a local server; a backend that exited meanwhile is left out).
db_cpu_ms() {
  local pid total=0
  for pid in $(ps -eo pid=,args= | awk -v db="$1" '$2 == "postgres:" && ($4 == db || $5 == db) { print $1 }'); do
    [[ -r /proc/$pid/stat ]] && total=$(awk -v t="$total" -v hz="$(getconf CLK_TCK)" '{ print t + ($14 + $15) * 1000 / hz }' "/proc/$pid/stat")
  done
  echo "$total"
}
source loadtest/lib/fence-metrics.sh
fence_metrics() { fence_metrics_at "$((port_base + 2 + 2 * $1))"; }  # gateway index
load() {  # gateway-index workload prefix extra-args...
  java -jar "$loadtest_jar" run --url "http://127.0.0.1:$((port_base + 1 + 2 * $1))" --workload "$2" --prefix "$3" \
    --connections "$connections" --warmup 1 "${@:4}" "${load_args[@]}"
}
read -ra load_args <<<"${LOAD_ARGS:-}"

echo "A = ${JVM_A:-} ${jars[0]} ${ARGS_A:-}, B = ${JVM_B:-} ${jars[1]} ${ARGS_B:-}; $rate writes/s offered to each, $round s a round; logs in $out"
# Both at saturation at once, unmeasured: the JIT compiles the path, and for same-token and mixed the
# round's token base is taken (every round starts from one, since each load run starts its own token book).
prime_both() {  # workload seconds
  local loaders=() i
  for i in 0 1; do load "$i" "$1" "/side/$workload" --mode SATURATE --duration "$2" "${tokens[@]}" >/dev/null & loaders+=($!); done
  wait "${loaders[@]}" || true
}
for workload in "${workloads[@]}"; do
  tokens=()
  prime_as=$workload
  case $workload in same-token|mixed) prime_as=same-token ;; esac
  echo "== $workload"
  for r in $(seq 1 "$rounds"); do
    case $workload in same-token|mixed) tokens=(--token-base "$(( $(date +%s%N) / 1000 ))") ;; esac
    prime_both "$prime_as" "$([[ $r == 1 ]] && echo "$prime" || echo 5)"
    declare -a before=() metrics=() pg_before=()
    for i in 0 1; do before[$i]=$(cpu_ms "${gateways[$i]}"); pg_before[$i]=$(db_cpu_ms "${databases[$i]}"); metrics[$i]=$(fence_metrics "$i"); done
    loaders=()
    for i in 0 1; do
      load "$i" "$workload" "/side/$workload" --mode FIXED --rate "$rate" --duration "$round" "${tokens[@]}" >"$out/$r-$i.json" &
      loaders+=($!)
    done
    wait "${loaders[@]}" || true
    line="  round $r:"
    for i in 0 1; do
      read -r held checks seconds < <(fence_metrics "$i")
      line+=$(python3 - "$out/$r-$i.json" "${before[$i]}" "$(cpu_ms "${gateways[$i]}")" "${pg_before[$i]}" "$(db_cpu_ms "${databases[$i]}")" \
        ${metrics[$i]} "$held" "$checks" "$seconds" "$([[ $i == 0 ]] && echo A || echo B)" <<'PY'
import json, sys
f, cpu0, cpu1, pg0, pg1, held0, checks0, sec0, held1, checks1, sec1, name = sys.argv[1:]
d = json.load(open(f))
writes = d["counts"]["answered"] + d["counts"]["warmupAnswered"]
checks = float(checks1) - float(checks0)
print(f" {name} {(float(cpu1) - float(cpu0)) * 1000 / max(1, writes):.1f} us/write"
      f" (PostgreSQL {(float(pg1) - float(pg0)) * 1000 / max(1, writes):.1f}), {d['throughput']:.0f} req/s,"
      f" {100 * (float(held1) - float(held0)) / max(1, writes):.1f}% held, fence check {1000 * (float(sec1) - float(sec0)) / max(1, checks):.2f} ms;", end="")
PY
)
    done
    echo "$line"
  done
done
