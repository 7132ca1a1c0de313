#!/usr/bin/env bash
# Where the machine's CPU goes per write, process by process, with one gateway at saturation: the
# gateway, the load generator, the do-nothing store and PostgreSQL (every one of its processes), from
# /proc over a window in the middle of each run, the gateway's JIT compiler threads apart, and the
# gateway's own CPU by kind of thread (event loops, fence checks, the in-flight listener, the garbage
# collector, the JIT compiler, the rest). What a
# workload costs besides the gateway's own work shows here: PostgreSQL's, and the load generator's
# and the store's at the rate the gateway allows.
# One do-nothing store and one gateway with a database of its own on the PostgreSQL at
# DB_HOST:DB_PORT, created for the run and dropped after it; a load generator of its own per run.
#   loadtest/cost-by-process.sh [workload ...]    (default: same-token new-objects same-token new-objects)
# Environment: RUN (seconds at saturation per run, 16), WINDOW (seconds measured from the fifth, 10),
# PRIME (seconds of each workload, unmeasured, before its first run, 60), CONNECTIONS (32),
# PORT_BASE (19700: store, gateway, admin), DB_HOST (127.0.0.1), DB_PORT (5432),
# GATEWAY_JAR (default gateway/target/fencegate.jar), PERF (1: a system-wide `perf record -g` of each
# window into the log folder, perf-<n>-<workload>.data, with the gateway's Java frames named once it
# has exited: `perf report -i <file> --comm multiThreadIoEv --no-children --sort sym`), NGINX (1: each run is followed by one of the
# same workload through the comparison's plain nginx proxy in front of the same store, on PORT_BASE + 3,
# measured alike, so that the machine's cost per write of both is read in one window of time).
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
# CPU ms of the gateway's threads now, as "kind ms" lines, summed by kind of thread (its name, /proc's comm).
gateway_threads() {
  local task comm line fields
  for task in /proc/"$gateway"/task/*; do
    { read -r comm <"$task/comm" && read -r line <"$task/stat"; } 2>/dev/null || continue
    read -ra fields <<<"${line##*) }"
    case $comm in
      multiThreadIoEv*) comm="event loops" ;;
      fence-check-*) comm="fence checks" ;;
      fence-inflight*) comm="in-flight listener" ;;
      GC\ * | G1\ *) comm="garbage collector" ;;
      C1\ * | C2\ *) comm="JIT" ;;
      *) comm="other" ;;
    esac
    echo "$comm $(( (fields[11] + fields[12]) * 1000 / hz ))"
  done | awk '{ kind = $0; sub(/ [0-9]+$/, "", kind); ms[kind] += $NF } END { for (k in ms) print k "\t" ms[k] }'
}
target_port=$gateway_port
load() {  # workload seconds token-args...
  java -jar "$loadtest_jar" run --url "http://127.0.0.1:$target_port" --workload "$1" --prefix "/cost/$target_port/$1" \
    --connections "$connections" --mode SATURATE --warmup 1 --duration "$2" "${@:3}"
}
tokens() { case $1 in same-token|mixed) echo --token-base "$(( $(date +%s%N) / 1000 ))" ;; esac; }

targets=("$gateway_port")
if [[ ${NGINX:-} == 1 ]]; then
  nginx_port=$((port_base + 3))
  (exec 3<>"/dev/tcp/127.0.0.1/$nginx_port") 2>/dev/null && { echo "port $nginx_port is in use: choose others with PORT_BASE" >&2; exit 1; }
  mkdir -p "$out/nginx"
  # The comparison's reference: loadtest's NginxConfig.reverseProxy, worker_processes auto.
  cat >"$out/nginx/nginx.conf" <<NGINX
$([[ $(id -u) == 0 ]] && echo "user root;")
worker_processes auto;
pid $out/nginx/nginx.pid;
error_log $out/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    default_type application/octet-stream;
    client_body_temp_path $out/nginx/client_body_temp;
    proxy_temp_path $out/nginx/proxy_temp;
    fastcgi_temp_path $out/nginx/fastcgi_temp;
    uwsgi_temp_path $out/nginx/uwsgi_temp;
    scgi_temp_path $out/nginx/scgi_temp;
    keepalive_requests 1000000;
    upstream store { server 127.0.0.1:$store_port; keepalive 64; keepalive_requests 1000000; }
    server {
        listen 127.0.0.1:$nginx_port;
        location / {
            proxy_pass http://store;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_request_buffering off;
            client_max_body_size 0;
        }
    }
}
NGINX
  # nginx reads sockets to inherit from its own NGINX variable: this script's switch must not reach it.
  env -u NGINX nginx -p "$out/nginx" -c "$out/nginx/nginx.conf" -g 'daemon off;' &
  pids+=($!)
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$nginx_port") 2>/dev/null && break; sleep 0.1; done
  targets+=("$nginx_port")
fi

echo "gateway $gateway_jar, $connections connections at saturation, $window s measured in runs of $run s; logs in $out"
declare -A primed=()
n=0
for workload in "${workloads[@]}"; do
 for target_port in "${targets[@]}"; do
  label=$workload
  [[ $target_port == "$gateway_port" ]] || label="$workload via nginx"
  n=$((n + 1))
  if [[ -z ${primed[$target_port $workload]:-} ]]; then
    # shellcheck disable=SC2046
    load "$workload" "$prime" $(tokens "$workload") >/dev/null 2>&1 || true
    primed[$target_port $workload]=1
  fi
  # shellcheck disable=SC2046
  load "$workload" "$run" $(tokens "$workload") >"$out/$n-$workload.json" 2>"$out/$n-$workload.err" &
  loader=$!
  sleep 5
  cpu_all >"$out/$n-before"
  gateway_threads >"$out/$n-threads-before"
  jit_before=$(jit_ticks)
  if [[ ${PERF:-} == 1 ]]; then
    perf record -a -g -F 999 -o "$out/perf-$n-$workload.data" -- sleep "$window" >/dev/null 2>&1
  else
    sleep "$window"
  fi
  cpu_all >"$out/$n-after"
  gateway_threads >"$out/$n-threads-after"
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
    elif [[ $comm == nginx ]]; then
      role[$pid]=nginx
    fi
  done
  roles=$(for pid in "${!role[@]}"; do echo "$pid ${role[$pid]}"; done)
  wait "$loader" || true
  python3 - "$out/$n-$workload.json" "$out/$n-before" "$out/$n-after" "$window" "$run" "$label" "$roles" "$jit" \
    "$out/$n-threads-before" "$out/$n-threads-after" <<'PY'
import json, sys
report, before_file, after_file, window, run, workload, roles, jit, threads_before, threads_after = sys.argv[1:]
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
order = ["gateway", "gateway JIT", "load generator", "store", "PostgreSQL", "other"] + (["nginx"] if "nginx" in totals else [])
parts = ", ".join(f"{name} {totals.get(name, 0.0) * 1000 / writes:.1f}" for name in order)
print(f"{workload}: {rate:,.0f} req/s over {run} s; CPU us/write: {parts}; all {sum(totals.values()) * 1000 / writes:.1f}")
def kinds(path):
    return {line.rsplit("\t", 1)[0]: float(line.rsplit("\t", 1)[1]) for line in open(path) if "\t" in line}
tb, ta = kinds(threads_before), kinds(threads_after)
kind_order = ["event loops", "fence checks", "in-flight listener", "garbage collector", "JIT", "other"]
split = ", ".join(f"{kind} {(ta.get(kind, 0.0) - tb.get(kind, 0.0)) * 1000 / writes:.1f}" for kind in kind_order)
if "nginx" not in workload:
    print(f"  gateway by thread, CPU us/write: {split}")
PY
 done
done
