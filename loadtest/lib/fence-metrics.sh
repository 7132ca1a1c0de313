# Sourced by the load-test scripts. fence_metrics_at ADMIN_PORT prints a gateway's held admissions,
# then its fence-check timer's count and seconds, summed over decisions, from its admin port.
fence_metrics_at() {
  curl -fs "http://127.0.0.1:$1/metrics" | awk '
    /^fencegate_fence_held_admissions_total/ { held += $2 }
    /^fencegate_fence_check_seconds_count/ { n += $2 }
    /^fencegate_fence_check_seconds_sum/ { s += $2 }
    END { print held + 0, n + 0, s + 0 }'
}
