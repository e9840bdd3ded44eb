#!/usr/bin/env bash
# Cancel command for cluster-generic (--cluster-generic-cancel-cmd tests/cluster/cancel.sh):
# ends the given jobs (their whole session, as scancel does), by the ids submit.sh printed.
set -uo pipefail
spool=${BENCHREPORT_SPOOL:-.cluster-spool}
for id in "$@"; do
  pid=$(cat "$spool/$id/pid" 2>/dev/null) || continue
  [ -f "$spool/$id/exit" ] && continue
  kill -TERM -- "-$pid" 2>/dev/null || true   # setsid made the job its own process group
done
exit 0
