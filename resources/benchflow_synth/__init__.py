"""Deterministic generator of BenchFlow 0.7.12 job folders (synthetic, for tests and the example).

The files it writes copy the shapes of real BenchFlow 0.7.12.dev2426 output
(``resources/example/benchflow-real-jobs`` and ``resources/example/benchflow-samples/v0.7.12-real``): the same key
sets in the same order, ``json.dumps(..., indent=2)`` layout, the same trailing-newline habits,
``str(datetime)`` timestamps with a space separator, ``<task>__<8 hex>`` attempt folders.
Everything is a pure function of the arguments: seeds go through ``random.Random``, the 8-hex
rollout suffix is a hash of (seed, job, task, attempt), nothing reads the clock, and file
mtimes are set from each trial's own timestamps (naive times read as UTC). Same arguments,
byte-identical files. Absolute paths inside the files (``rollout_dir``, verifier messages,
``matrix-summary.json``) point under a virtual ``/srv/bench/jobs/<jobs-dir name>`` root, like
the real samples, so the output does not depend on where it is written.

Public API
----------
``write_job(jobs_dir, *, job_name, setting, trials, seed, write_summary=True, start=None,
results_steps=True)``
    One plain job: ``<jobs_dir>/<job_name>/<task>__<hex8>/...`` (one folder per attempt),
    ``<job>/summary.json``, ``<job>/results.jsonl`` and the ``<jobs_dir>/summary.json`` copy.
``write_matrix(jobs_dir, *, alias, setting, tries, seed, start, write_matrix_summary=True,
results_steps=True)``
    The ``--matrix --trials N`` layout: ``<jobs_dir>/matrix-summary.json`` and
    ``<jobs_dir>/<alias>/trial-NN/{summary.json,<YYYY-MM-DD__HH-MM-SS>/...}``. An entry of
    ``tries`` may be ``{"trials": [...], "write_summary": False}`` (a killed try).
``build_example(out_dir)``
    The embedded example described below. CLI:
    ``python -m benchflow_synth example resources/example/generated``.
``build_scale(out_dir, *, jobs, trials, seed=0, request_kb=30, requests=20, workers=1,
results_steps=False)``
    ``jobs`` job folders of ``trials`` trials each, for benchmarks (see "Scale builds" at the
    end). CLI: ``python -m benchflow_synth scale OUT --jobs N --trials M [--seed S]
    [--request-kb K] [--requests R] [--workers W]``.
``build_review_jobs(out_dir)``
    Two small plain jobs for tests: an integrated rubric review with a dataset version, and a
    budget stop with an unpriced model (see "review jobs" above the CLI). CLI:
    ``python -m benchflow_synth review-jobs OUT``.

A trial is ``{"task": name, "attempts": [attempt, ...]}`` (chronological; more than one attempt
means BenchFlow retried the task inside the job), optionally with ``"task_digest"`` to override
the setting's digest for that task in that job (task drift; None: the trial records no digest). An attempt is a dict whose
``"kind"`` is one of ``passed``, ``failed`` (``reward``, default 0.0; a reward strictly between
0 and 1 writes a partial-credit ``verifier/reward.json`` with extra keys, like BenchFlow's
real ``spec-partial``), ``agent_error`` (``error_category``: ``timeout`` (default),
``idle_timeout``, ``install_failure``, ``acp_error``, ...; rewards null), ``agent_error_scored``
(agent error, but the verifier still scored: rewards present), ``verifier_error`` (rewards null,
``verifier crashed: No reward file found at ...``, category ``verifier_failure``; or
``verifier_error_category="verifier_timeout"``), ``suspected_api_error`` (zero tokens and zero
tool calls, rewards null, like the real nop runs), ``unscored`` (rewards null, no error, no
verifier error) and ``interrupted`` (only ``config.json`` plus the empty ``agent/ verifier/
artifacts/ trajectory/`` folders BenchFlow pre-creates). Optional attempt keys: ``reward``,
``error_category``, ``verifier_error_category``, ``tokens`` (scale of the total token count),
``cost`` (float or None; overrides the computed cost), ``n_tool_calls``, ``duration`` (seconds).

``setting`` keys: ``agent``, ``agent_name``, ``model`` (str, None, or ``"none"`` for a matrix
oracle), ``reasoning_effort``, ``served_model`` (provider model id; None means no
``llm_trajectory.jsonl``), ``usage_source`` (``provider_response`` | ``agent_native_acp`` |
``unavailable``), ``price_source`` (``"litellm"`` | None), optional ``dataset_name`` /
``dataset_version``, ``task_digests`` {task: "sha256:..."} (default: a stable sha256 of the task
name), ``install_package`` (writes ``agent/install-stdout.txt`` naming the installed harness),
``agent_env``, ``api_style`` (``anthropic`` | ``openai``; default from the model prefix),
``token_scale`` and ``duration_scale``.

Conventions worth knowing when reading the output:

* The job ``summary.json`` is computed like ``Evaluation.run``: audit buckets (``classify_audit_outcome``) over
  the last attempt of each task that has a ``result.json`` (a task whose only attempt is
  interrupted is not in ``total``); ``score`` strings like ``"25.0%"``; tokens and cost only over
  healthy scored trials with trusted usage; phase timing over every result.
* LLM agents write ``trajectory/llm_trajectory.jsonl`` with 3-10 request lines in the exact
  0.7.12 line format; ``result.json`` token counts are the sums over those lines
  (``n_input_tokens`` includes cache reads and writes); ``cost_usd`` is computed from a small
  built-in price table when ``price_source == "litellm"`` and is null otherwise (0.0 -> null).
* A partial-credit attempt writes only ``verifier/reward.json`` (no ``reward.txt``), like the
  real ``spec-partial`` sample. A ``suspected_api_error`` attempt still has ``reward.txt`` = 0
  (the verifier ran; BenchFlow nulls the reward), like the real nop runs.
* Skipped to save space: ``trainer/``, job-level ``verifiers.jsonl`` / ``adp.jsonl``, the legacy
  ``agent/acp_trajectory.jsonl`` copy. A killed job (``write_summary=False``) also has no
  job-level ``results.jsonl`` (BenchFlow writes it at the end of the job).
* Guesses (no real sample shows them): ``usage_tracking.status`` is ``"captured"`` when usage was
  recorded; the shapes of ``agent_timeout_info`` / ``idle_timeout_info`` follow BenchFlow's
  diagnostics dataclasses; error message texts only carry the markers BenchFlow's classifier
  looks for (e.g. "prompt exceeded wall-clock budget", "agent idle for").
* Empty directories (``artifacts/``, and everything in an interrupted attempt but
  ``config.json``) do not survive a git commit; consumers must not rely on them.

The embedded example (``build_example``)
----------------------------------------
One task set of 12 tasks, shared by every setting: fix-json-parser, csv-dedupe,
log-rotate-config, sql-query-optimizer, regex-email-validator, merge-sorted-streams,
dockerfile-slim, flaky-test-quarantine, unicode-normalize, cron-schedule-parser,
git-bisect-regression, pdf-table-extract. Every jobs-dir below is a ``--matrix`` layout
``<dir>/<alias>/trial-NN/<job>/`` except the last (plain layout).

====  ============================  =====================  ===================================
 #    jobs dir (alias)               tries                 setting
====  ============================  =====================  ===================================
 1    claude-sonnet-high-x5          5                     claude-agent-acp,
      (claude-sonnet-4-5-high)                             anthropic/claude-sonnet-4-5 served as
                                                           claude-sonnet-4-5-20250929, effort
                                                           high (``thinking`` budget 31999),
                                                           price_source litellm
 2    claude-sonnet-low-x3           3                     same agent and model, effort low
      (claude-sonnet-4-5-low)                              (``thinking`` budget 4000)
 3    codex-gpt-5.1-x3               3                     codex-acp, openai/gpt-5.1 served as
      (codex-gpt-5.1)                                      gpt-5.1-2025-11-13, no effort, litellm;
                                                           no install log (harness version
                                                           unknown)
 4    gemini-2.5-pro-x4              4 (try 4 killed)      gemini-cli, gemini/gemini-2.5-pro,
      (gemini-2.5-pro)                                     usage_source agent_native_acp, no
                                                           llm_trajectory, cost null
 5    oracle-x3 (oracle)             3                     oracle, model "none"
 6    nop-x3 (nop)                   3                     nop, model null, one tool call
 7    codex-gpt-5.1-plain            1 (plain job)         setting 3, plain layout
====  ============================  =====================  ===================================

Outcome grid, one column per try, one attempt code per BenchFlow attempt (``a+b`` = a retry
inside the job, chronological): ``P`` passed, ``F`` failed (reward 0), ``H`` partial credit
(reward 0.5, failed), ``T`` agent_error timeout, ``S`` agent_error_scored (timeout, reward 1.0:
audit-passed), ``s`` agent_error_scored (timeout, reward 0.0), ``n`` agent_error install_failure,
``V`` verifier_error (verifier_failure), ``U`` unscored, ``X`` interrupted (config.json only),
``-`` task never started.

.. code-block:: text

    task                   1:claude-high  2:claude-low 3:codex  4:gemini  5:oracle  6:nop  7:plain
    fix-json-parser        P P P P P      P P P        P P P    P P F P   P P P     F F F  P
    csv-dedupe             P P P P P      P P P        P F P    P P P P   P P P     F F F  P
    log-rotate-config      P F P P F      F F P        P P P    F P F P   P P P     F F F  P
    sql-query-optimizer    H F F P F      F F F        F F P    F F F F   P P P     F F F  F
    regex-email-validator  P P F P P      P F P        P P P    P P P P   P P P     F F F  P
    merge-sorted-streams   P P P n+P P    P P P        P X P    P F P P   P P P     F F F  P
    dockerfile-slim        T F S F s      F F F        F F F    F F F X   P P P     F F F  F
    flaky-test-quarantine  P V P F P      F P F        F P P    F F P -   P P P     F F F  P
    unicode-normalize      P P P P P      P P F        P P P    P P P -   P P P     F F F  P
    cron-schedule-parser   F F F F F      F F F        F U F    F F F -   P P P     F F F  F
    git-bisect-regression  F F F F F      F F F        F F F    F F F -   P F P     F F F  F
    pdf-table-extract      F P F P F      F F F        P F F    F F F -   P P P     F F F  P

The audit counts in each job's ``summary.json`` (BenchFlow's buckets over the last attempt of
each task; ``passed+failed+errored+verifier_errored`` can be less than ``total`` because unscored
results are counted in ``total`` only; ``score`` = passed/total):

.. code-block:: text

    setting        try  total passed failed errored verifier_errored
    1:claude-high    1     12      7      4       1                0
    1:claude-high    2     12      6      5       0                1
    1:claude-high    3     12      7      5       0                0
    1:claude-high    4     12      8      4       0                0
    1:claude-high    5     12      6      6       0                0
    2:claude-low     1     12      5      7       0                0
    2:claude-low     2     12      5      7       0                0
    2:claude-low     3     12      5      7       0                0
    3:codex          1     12      7      5       0                0
    3:codex          2     11      5      5       0                0
    3:codex          3     12      8      4       0                0
    4:gemini         1     12      5      7       0                0
    4:gemini         2     12      5      7       0                0
    4:gemini         3     12      5      7       0                0
    4:gemini         4  (killed: no summary.json)
    5:oracle         1     12     12      0       0                0
    5:oracle         2     12     11      1       0                0
    5:oracle         3     12     12      0       0                0
    6:nop            1     12      0     12       0                0
    6:nop            2     12      0     12       0                0
    6:nop            3     12      0     12       0                0
    7:plain          1     12      8      4       0                0

A healthy run: the oracle passes every try and the nop is scored and fails every try on every
task but one, and each kind of problem the report explains happens once, where it is:

* Controls: the oracle fails git-bisect-regression in its try 2 (a broken task: its controls
  fail, so the reports leave it out of the headline). Each nop attempt reports one inert tool
  call, so BenchFlow scores it (reward 0) instead of flagging a suspected API error; the nop
  controls of the real runs (``benchflow-real-jobs/script-run``) show both.
* Task drift: in claude-high try 4, log-rotate-config has a different ``task_digest``, a version
  no control ran on (its controls are not verified for claude-high).
* Retry (two ``<task>__<hex>`` folders for one task in one job): claude-high try 4
  merge-sorted-streams (install_failure, then passed).
* Timeouts, each counted by its reward as BenchFlow counts it: claude-high dockerfile-slim try 1
  (no reward: the one errored trial), try 3 (reward 1.0, so summary.json counts it passed) and
  try 5 (reward 0.0, counted failed).
* Partial credit 0.5: claude-high try 1 sql-query-optimizer. Verifier error: claude-high try 2
  flaky-test-quarantine. Unscored: codex try 2 cron-schedule-parser.
* Interrupted: codex try 2 merge-sorted-streams is that task's only attempt (job finished, its
  summary.json has total 11). Gemini try 4 is a killed job: 6 tasks finished, 1 interrupted, 5
  never started; it has no job summary.json and no trial-04/summary.json, and
  gemini-2.5-pro-x4/ has no matrix-summary.json (like the real aborted nop matrix).
* A plain job of setting 3 (codex): one more try of every task outside the matrix, so codex has
  4 tries of each task but merge-sorted-streams (3), numbered by their recorded start.
* Harness versions: ``agent/install-stdout.txt`` names @agentclientprotocol/claude-agent-acp@0.73.0
  (settings 1-2) and @google/gemini-cli@0.42.0 (setting 4); codex has none.

Note: in the real runs (``benchflow-real-jobs/extra/nop-matrix-aborted``) a ``--matrix`` run
stopped after a try whose job ended with errors (the CLI exits 1). This example still writes
full matrices whose tries have errors (only the gemini dir is aborted): it exists to exercise
the report, not to replay the CLI's control flow.

``example_outcome_grid()`` and ``example_audit_table()`` return the two tables above;
``tests/test_synth.py`` checks them against this docstring and against the generated files.
The example's ``results.jsonl`` rows leave the per-exchange trainer ``trajectory`` list empty
(``results_steps=False``) to keep the folder small; every other field is as BenchFlow computes
it.

Scale builds (``build_scale``)
------------------------------
Job i (0-based) has setting ``SCALE_SETTINGS[i % S]`` with S = min(4, N): claude-agent-acp
with anthropic/claude-sonnet-4-5 at effort high and at effort low, codex-acp with
openai/gpt-5.1, opencode with openai/gpt-5-mini at effort low (no price); its try index is
i // S + 1 and it is written as ``<setting dir>-x<tries>/<alias>/trial-NN/<job>/`` with one
``matrix-summary.json`` per setting dir. Every job runs the same M tasks ``scale-task-0000``...
once each (concurrency 32; tries one day apart). Outcomes are drawn per (setting, try, task)
from a pass probability that is logistic in (setting skill - task difficulty), with agent
errors (timeouts, idle timeouts), verifier errors (failures and timeouts), unscored results,
agent errors that still scored, partial credit, retries after an agent error (1.5 %), attempts
killed then resumed (0.2 %) and killed for good (0.05 %). Every job with at least six tasks also
holds each ``SCALE_SPECIALS`` case once (interrupted, resumed, retried, errored,
verifier_errored, unscored) at positions drawn from the seed. Every attempt that reached the
model has exactly R request lines of K KiB each (the padding is a ``<context>`` block in the
first user message; token counts and costs are unaffected). At the defaults (R=20, K=30) a
trial is about 0.6 MB: 100 x 1,000 is about 60 GB, so pick smaller R or K where the disk is
smaller. Writing is about 1-2 ms of CPU per trial plus the trajectory bytes.
"""

from __future__ import annotations

from .cli import main
from .common import KINDS, default_task_digest, rollout_suffix
from .example import build_example, example_audit_table, example_outcome_grid
from .jobs import write_job, write_matrix
from .review import BUDGET_SETTING, build_review_jobs, rubric_text
from .scale import (
    SCALE_REQUEST_KB,
    SCALE_REQUESTS,
    SCALE_SETTINGS,
    build_scale,
    scale_job_specs,
    scale_task_names,
    scale_trials,
)
from .summary import audit_outcome, job_summary

__all__ = [
    "BUDGET_SETTING",
    "KINDS",
    "SCALE_REQUESTS",
    "SCALE_REQUEST_KB",
    "SCALE_SETTINGS",
    "audit_outcome",
    "build_example",
    "build_review_jobs",
    "build_scale",
    "default_task_digest",
    "example_audit_table",
    "example_outcome_grid",
    "job_summary",
    "main",
    "rollout_suffix",
    "rubric_text",
    "scale_job_specs",
    "scale_task_names",
    "scale_trials",
    "write_job",
    "write_matrix",
]
