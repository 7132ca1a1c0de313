# Sourced by the load-test scripts. await_ready ADMIN_PORT WHAT waits up to 2 minutes for a gateway's
# /readyz on its admin port and exits the script, naming WHAT (its log, say), if it never answers.
await_ready() {
  for _ in $(seq 1 240); do
    curl -fs "http://127.0.0.1:$1/readyz" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "gateway not ready: $2" >&2
  exit 1
}
