#!/usr/bin/env bash
# Status command for cluster-generic (--cluster-generic-status-cmd tests/cluster/status.sh):
# prints exactly one of running / success / failed for the job id submit.sh printed, from the
# job's recorded exit code, as squeue/sacct would.
set -uo pipefail
spool=${BENCHREPORT_SPOOL:-.cluster-spool}
jobdir="$spool/${1:?usage: status.sh JOBID}"

from_exit() { if [ "$(cat "$jobdir/exit")" = 0 ]; then echo success; else echo failed; fi; }

alive() {  # the job's process exists and is not a zombie waiting to be reaped
  local pid state
  pid=$(cat "$jobdir/pid" 2>/dev/null) || return 1
  if [ -r "/proc/$pid/stat" ]; then
    state=$(sed -E 's/^.*\) ([A-Za-z]).*$/\1/' "/proc/$pid/stat" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
  else
    kill -0 "$pid" 2>/dev/null
  fi
}

if [ ! -d "$jobdir" ]; then
  echo failed            # a job id this queue never issued
elif [ -f "$jobdir/exit" ]; then
  from_exit
elif alive; then
  echo running
elif [ -f "$jobdir/exit" ]; then
  from_exit              # it ended between the two checks above
else
  echo failed            # gone without an exit code: killed, like a node failure
fi
