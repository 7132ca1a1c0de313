#!/usr/bin/env bash
# Where a fence-changing write spends its time. Starts a throwaway PostgreSQL (its own data dir
# and port, pg_stat_statements loaded; the shared server is not touched), the do-nothing store
# and one gateway, then for each workload: an unmeasured priming run, a measured saturation run
# (statements, transactions, WAL flushes, CPU of the gateway and of PostgreSQL, per write), and a
# profiled run (thread dumps by SIGQUIT twice a second, a JFR recording of on-CPU samples).
#   loadtest/profile-fence-writes.sh [workload ...]    (default: new-objects raises mixed same-token)
# Environment: DURATION (measured seconds, 10), PRIME (unmeasured seconds first, 15: the JIT compiles the
# fence-changing path during it, and its compiler threads would otherwise be half the CPU per write), CONNECTIONS (32), PG_PORT (56543), POOL (--db-pool-size, 2, the default),
# PORT_BASE (19580: store, gateway, admin), OUT (default loadtest/reports/profile-<timestamp>),
# GATEWAY_JAR (default gateway/target/fencegate.jar; another build to compare with).
set -euo pipefail
case ${1:-} in -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."

workloads=("$@")
[[ ${#workloads[@]} -gt 0 ]] || workloads=(new-objects raises mixed same-token)
duration=${DURATION:-10}
prime=${PRIME:-15}
connections=${CONNECTIONS:-32}
pg_port=${PG_PORT:-56543}
pool=${POOL:-2}
port_base=${PORT_BASE:-19580}
store_port=$port_base gateway_port=$((port_base + 1)) admin_port=$((port_base + 2))
out=${OUT:-loadtest/reports/profile-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
loadtest_jar=loadtest/target/fencegate-loadtest.jar
gateway_jar=${GATEWAY_JAR:-gateway/target/fencegate.jar}
store_jar=demo/target/fencegate-demo.jar
[[ -f $loadtest_jar && -f $gateway_jar && -f $store_jar ]] || ./mvnw -q -DskipTests package

# Another engineer's server on one of these ports would be measured (and wiped of its statistics) instead.
for port in "$pg_port" "$store_port" "$gateway_port" "$admin_port"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is in use: choose others with PG_PORT or PORT_BASE" >&2
    exit 1
  fi
done

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
pg_dir=$(mktemp -d /tmp/fencegate-profile-pg.XXXXXX)
as_pg() { if [[ $(id -u) == 0 ]]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
[[ $(id -u) != 0 ]] || chown postgres "$pg_dir"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  as_pg "$pg_bin/pg_ctl -D $pg_dir/data -m fast -w stop" >/dev/null 2>&1 || true
  rm -rf "$pg_dir"
}
trap cleanup EXIT

as_pg "$pg_bin/initdb -D $pg_dir/data -U postgres --auth=trust -E UTF8" >"$out/initdb.log"
cat >>"$pg_dir/data/postgresql.conf" <<CONF
port = $pg_port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$pg_dir'
max_connections = 40
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
pg_stat_statements.track_planning = on
fsync = on
synchronous_commit = on
track_wal_io_timing = on
CONF
as_pg "$pg_bin/pg_ctl -D $pg_dir/data -l $pg_dir/postgres.log -w start" >/dev/null
sql() { psql -qAtX -h 127.0.0.1 -p "$pg_port" -U postgres -d "${2:-test}" -F ' ' -c "$1"; }
sql "CREATE DATABASE test" postgres
sql "CREATE EXTENSION pg_stat_statements"
postmaster=$(head -1 "$pg_dir/data/postmaster.pid")

java -jar "$store_jar" store --listen 127.0.0.1:$store_port --discard >"$out/store.log" 2>&1 &
pids+=($!)
java -Xmx256m -jar "$gateway_jar" serve --listen 127.0.0.1:$gateway_port --admin-listen 127.0.0.1:$admin_port \
  --upstream http://127.0.0.1:$store_port --db-url "jdbc:postgresql://127.0.0.1:$pg_port/test" --db-user postgres \
  --db-pool-size "$pool" >"$out/gateway.log" 2>&1 &
gateway=$!
pids+=($gateway)
source loadtest/lib/await-ready.sh
await_ready "$admin_port" "see $out/gateway.log"

# CPU in milliseconds from /proc (utime + stime; for PostgreSQL also what exited backends left the postmaster).
ticks_ms() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15 + $16 + $17) * 1000 / hz }' "/proc/$1/stat"; }
pg_cpu_ms() {
  local total=0 pid
  for pid in $postmaster $(ps -o pid= --ppid "$postmaster"); do
    [[ -r /proc/$pid/stat ]] && total=$(awk -v t="$total" -v ms="$(ticks_ms "$pid" 2>/dev/null || echo 0)" 'BEGIN { print t + ms }')
  done
  echo "$total"
}
# PostgreSQL CPU by process kind, ms: "kind ms" lines (backends of the test database as "backend",
# background processes by their title, what exited processes left as "exited").
pg_cpu_kinds() {
  local pid hz
  hz=$(getconf CLK_TCK)
  awk -v hz="$hz" '{ print "exited", ($16 + $17) * 1000 / hz }' "/proc/$postmaster/stat"
  for pid in $(ps -o pid= --ppid "$postmaster"); do
    [[ -r /proc/$pid/stat ]] || continue
    printf '%s %s\n' "$(tr '\0' ' ' <"/proc/$pid/cmdline" | sed -E 's/^postgres: //; s/^postgres test .*/backend/; s/ +$//; s/ /_/g')" \
      "$(awk -v hz="$hz" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1000 / hz }' "/proc/$pid/stat" 2>/dev/null || echo 0)"
  done | awk '{ ms[$1] += $2 } END { for (k in ms) print k, ms[k] }'
}
# Gateway CPU by thread group, user and system ms: "group user sys" lines (thread names as the kernel keeps them).
thread_cpu() {
  local hz task
  hz=$(getconf CLK_TCK)
  for task in /proc/"$1"/task/*; do
    [[ -r $task/stat ]] || continue
    printf '%s %s\n' "$(tr ' ' '_' <"$task/comm" | sed -E 's/[-_]?[0-9]+(-[0-9]+)*$//')" \
      "$(awk -v hz="$hz" '{ sub(/^.*\) /, ""); print $12 * 1000 / hz, $13 * 1000 / hz }' "$task/stat")"
  done | awk '{ u[$1] += $2; s[$1] += $3 } END { for (g in u) print g, u[g], s[g] }'
}
source loadtest/lib/fence-metrics.sh
fence_metrics() { fence_metrics_at "$admin_port"; }
settled_counters() {
  sleep 11  # PostgreSQL 15 publishes transaction and WAL counts up to ten seconds late
  sql "SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = 'test'), wal_records, wal_sync, wal_bytes,
       wal_sync_time FROM pg_stat_wal"
}
load() {  # workload prefix duration extra-args...
  java -jar "$loadtest_jar" run --url "http://127.0.0.1:$gateway_port" --workload "$1" --prefix "$2" \
    --mode SATURATE --connections "$connections" --warmup 1 --duration "$3" "${@:4}"
}
json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

for workload in "${workloads[@]}"; do
  echo "== $workload" | tee -a "$out/summary.txt"
  base=$(( $(date +%s) * 1000000 ))
  prefix=/profile/$workload
  # Same-token and mixed runs start from fences at one base; raises and new objects make their own.
  case $workload in
    same-token|mixed) load same-token "$prefix" "$prime" --token-base "$base" >/dev/null || true ;;
    *) load "$workload" "$prefix" "$prime" >/dev/null || true ;;
  esac
  read -r xact0 walrec0 walsync0 walbytes0 walms0 < <(settled_counters)
  lsn0=$(sql "SELECT pg_current_wal_insert_lsn()")
  sql "SELECT pg_stat_statements_reset()" >/dev/null
  read -r held0 checks0 checksec0 < <(fence_metrics); thread_cpu "$gateway" >"$out/$workload.threads-before.txt"; gw0=$(ticks_ms "$gateway"); pg0=$(pg_cpu_ms); pg_cpu_kinds >"$out/$workload.pg-before.txt"
  case $workload in
    same-token|mixed) load "$workload" "$prefix" "$duration" --token-base "$base" >"$out/$workload.json" || true ;;
    *) load "$workload" "$prefix" "$duration" >"$out/$workload.json" || true ;;
  esac
  gw1=$(ticks_ms "$gateway"); pg1=$(pg_cpu_ms); pg_cpu_kinds >"$out/$workload.pg-after.txt"; thread_cpu "$gateway" >"$out/$workload.threads-after.txt"
  read -r held1 checks1 checksec1 < <(fence_metrics)
  sql "SELECT calls, rows, round(mean_exec_time::numeric, 3), round(mean_plan_time::numeric, 3), plans,
       regexp_replace(left(query, 90), '\s+', ' ', 'g')
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'test') ORDER BY calls DESC" \
    >"$out/$workload.statements.txt"
  read -r xact1 walrec1 walsync1 walbytes1 walms1 < <(settled_counters)
  lsn1=$(sql "SELECT pg_current_wal_insert_lsn()")
  # What the WAL records were (the measured run and the 11 s after it: background sweeps, autovacuum).
  as_pg "$pg_bin/pg_waldump --stats=record -p $pg_dir/data/pg_wal -s $lsn0 -e $lsn1" >"$out/$workload.wal.txt" 2>&1 || true
  sql "SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del, n_dead_tup, autovacuum_count, autoanalyze_count
       FROM pg_stat_user_tables ORDER BY relname" >"$out/$workload.tables.txt"
  writes=$(json "$out/$workload.json" "d['counts']['answered'] + d['counts']['warmupAnswered']")
  python3 - "$out/$workload.statements.txt" "$writes" "$held0" "$held1" "$checks0" "$checks1" "$checksec0" "$checksec1" \
    "$(json "$out/$workload.json" "round(d['throughput'])")" "$(json "$out/$workload.json" "d['counts']['errors']")" \
    "$gw0" "$gw1" "$pg0" "$pg1" "$xact0" "$xact1" "$walrec0" "$walrec1" "$walsync0" "$walsync1" \
    "$walbytes0" "$walbytes1" "$walms0" "$walms1" \
    "$(json "$out/$workload.json" "d['latencyMs']['p50']")" "$(json "$out/$workload.json" "d['latencyMs']['p99']")" \
    <<'PY' | tee -a "$out/summary.txt"
import sys
(f, writes, h0, h1, c0, c1, cs0, cs1, rps, errors, gw0, gw1, pg0, pg1, x0, x1, r0, r1, s0, s1, b0, b1, w0, w1,
 p50, p99) = sys.argv[1:]
writes = int(writes); per = lambda v: v / max(1, writes)
checks = float(c1) - float(c0)
print(f"  {writes} writes ({rps} req/s, p50 {p50} ms, p99 {p99} ms, {errors} errors), "
      f"{float(h1) - float(h0):.0f} of them admitted at a held fence")
print(f"  fence check (claim to decision, every decision): {checks:.0f} checks, "
      f"mean {1000 * (float(cs1) - float(cs0)) / max(1, checks):.2f} ms")
print(f"  gateway CPU {per((float(gw1) - float(gw0)) * 1000):.1f} us/write, PostgreSQL CPU {per((float(pg1) - float(pg0)) * 1000):.1f} us/write")
print(f"  transactions {per(int(x1) - int(x0)):.3f}/write, WAL records {per(int(r1) - int(r0)):.2f}/write, "
      f"WAL flushes {per(int(s1) - int(s0)):.3f}/write ({(float(w1) - float(w0)) / max(1, int(s1) - int(s0)):.2f} ms each), "
      f"WAL bytes {per(int(b1) - int(b0)):.0f}/write")
total = 0
for line in open(f):
    calls, rows, mean, plan, plans, query = line.rstrip("\n").split(" ", 5)
    total += int(calls)
    if int(calls) >= writes / 1000:
        print(f"    {per(int(calls)):7.3f} calls/write, {int(rows) / max(1, int(calls)):6.2f} rows/call, {mean} ms"
              f" (+ {plan} ms planning, {int(plans) / max(1, int(calls)):.2f} plans/call): {query}")
print(f"  statements {per(total):.3f}/write (each a round trip; autocommit, so each writing one commits)")
PY
  awk -v n="$writes" 'NR == FNR { u[$1] = $2; s[$1] = $3; next }
    { du = $2 - u[$1]; ds = $3 - s[$1]; if (du + ds > 0) printf "    gateway threads %s: %.1f us/write user, %.1f us/write system\n", $1, du * 1000 / n, ds * 1000 / n }' \
    "$out/$workload.threads-before.txt" "$out/$workload.threads-after.txt" | sort -t: -k2 -rn | tee -a "$out/summary.txt"
  # The JIT compiles again when load resumes after the pause above (branches first taken then):
  # CPU a gateway under steady load does not spend, so the rest is given apart.
  awk -v n="$writes" 'NR == FNR { u[$1] = $2; s[$1] = $3; next }
    { d = $2 - u[$1] + $3 - s[$1]; if ($1 ~ /Compiler/) jit += d; else rest += d }
    END { printf "  gateway CPU without the JIT compiler threads %.1f us/write (compiler threads %.1f)\n", rest * 1000 / n, jit * 1000 / n }' \
    "$out/$workload.threads-before.txt" "$out/$workload.threads-after.txt" | tee -a "$out/summary.txt"
  awk -v n="$writes" 'NR == FNR { ms[$1] = $2; next }
    { d = $2 - ms[$1]; if (d > 0) printf "    PostgreSQL %s: %.1f us/write\n", $1, d * 1000 / n }' \
    "$out/$workload.pg-before.txt" "$out/$workload.pg-after.txt" | sort -t: -k2 -rn | tee -a "$out/summary.txt"
  sql "SELECT pg_stat_statements_reset()" >/dev/null
  log_size=$(stat -c %s "$out/gateway.log")
  jcmd "$gateway" JFR.start name=profile settings="${JFR_SETTINGS:-profile}" filename="$out/$workload.jfr" >/dev/null
  case $workload in
    same-token|mixed) load "$workload" "$prefix" "$duration" --token-base "$base" >/dev/null & ;;
    *) load "$workload" "$prefix" "$duration" >/dev/null & ;;
  esac
  loader=$!
  sleep 1.5
  for _ in $(seq 1 $((duration * 2 - 2))); do kill -QUIT "$gateway"; sleep 0.5; done
  wait "$loader" || true
  jcmd "$gateway" JFR.stop name=profile >/dev/null
  tail -c +$((log_size + 1)) "$out/gateway.log" >"$out/$workload.threads.txt"
  python3 loadtest/profile/summarise.py threads "$out/$workload.threads.txt" | tee -a "$out/summary.txt"
  python3 loadtest/profile/summarise.py jfr "$out/$workload.jfr" | tee -a "$out/summary.txt"
done
echo "written to $out"
