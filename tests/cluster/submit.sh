#!/usr/bin/env bash
# A local stand-in for a batch scheduler's submit command (sbatch, qsub), for Snakemake's
# cluster-generic executor:
#
#   --cluster-generic-submit-cmd 'tests/cluster/submit.sh --rule {rule} --threads {threads} --mem-mb {resources.mem_mb}'
#
# Snakemake appends the job script as the last argument. The job is queued in the spool folder
# ($BENCHREPORT_SPOOL, default .cluster-spool/ in the folder snakemake runs in), started in the
# background in a session of its own (detached from snakemake, as a scheduler's job is), and
# its id is printed on stdout, which is all cluster-generic reads. The job's stdout/stderr go to
# <spool>/<id>/out, its exit code to <spool>/<id>/exit once it ends (status.sh reads it), and the
# requested rule/threads/mem_mb to <spool>/<id>/request (the test checks every job asked for
# them). Resources are recorded, not enforced: this is one machine.
set -euo pipefail

rule="" threads="" mem_mb=""
while [ $# -gt 1 ]; do
  case "$1" in
    --rule) rule=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --mem-mb) mem_mb=$2; shift 2 ;;
    *) echo "submit.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: submit.sh [--rule R] [--threads N] [--mem-mb M] JOBSCRIPT" >&2; exit 2; }
jobscript=$1
[ -r "$jobscript" ] || { echo "submit.sh: cannot read job script $jobscript" >&2; exit 2; }

spool=${BENCHREPORT_SPOOL:-.cluster-spool}
mkdir -p "$spool"
spool=$(cd "$spool" && pwd)
jobdir=$(mktemp -d "$spool/job.XXXXXXXX")
id=$(basename "$jobdir")

# Snakemake deletes its job scripts when it exits: the queue keeps its own copy, as sbatch does.
cp "$jobscript" "$jobdir/jobscript.sh"
printf 'rule=%s\nthreads=%s\nmem_mb=%s\n' "$rule" "$threads" "$mem_mb" > "$jobdir/request"

# The job: run the script, then publish its exit code atomically (status.sh must never read a
# half-written file). setsid + nohup + closed stdin/stdout: nothing ties it to this shell, and
# snakemake (which waits for this script's stdout to close) gets the id at once.
setsid nohup bash -c '
  bash "$1/jobscript.sh" > "$1/out" 2>&1
  echo $? > "$1/exit.tmp" && mv "$1/exit.tmp" "$1/exit"
' job "$jobdir" < /dev/null > /dev/null 2>&1 &
echo $! > "$jobdir/pid"
echo "$id"
