"""The verdict of the controls on one version of a task, from counts alone.

Its own pure-Python module because two stages apply it: the stats stage to the trials
(`stats.control_summary`) and the workflow at parse time to the ingests' counts, to plan which
coverage shape a setting needs (`shapes.planned_profile`).
"""

from __future__ import annotations

# The outcomes that reached a score, the trials BenchFlow counts in pass@k's n (the others:
# errored, verifier errored, unscored).
SCORED = ("passed", "failed")
# The config key (controls.<key>) that says whether a task with this verdict is kept or excluded.
POLICY = {"fails": "on_failure", "not verified": "on_unverified"}


def worst(verdicts) -> str:
    """The worst of some verdicts (fails, then not verified, then holds): a task's, over its versions."""
    return next(verdict for verdict in ("fails", "not verified", "holds") if verdict in verdicts)


def version_verdict(oracle: dict | None, nop: dict | None) -> tuple[str, list[str]]:
    """(verdict, reasons) of the controls on one version of a task.

    fails: the oracle did not pass a try (failed, errored, verifier-errored or unscored: even the
    reference solution cannot pass, so the task or its verifier is broken), or the nop passed one.
    holds: the oracle passed every try, and the nop was scored on every try and passed none.
    not verified: otherwise: no oracle ran, or the nop never reached a score on some tries (an
    errored nop proves nothing about whether doing nothing passes), or no nop ran.
    """
    failures, gaps = [], []
    if oracle and oracle["passed"] < oracle["trials"]:
        failures.append(f"oracle passed {oracle['passed']} of {oracle['trials']}")
    if nop and nop["passed"]:
        failures.append(f"nop passed {nop['passed']} of {nop['trials']}")
    if failures:
        return "fails", failures
    if not oracle:
        gaps.append("no oracle ran")
    if not nop:
        gaps.append("no nop ran")
    elif nop["scored"] < nop["trials"]:
        gaps.append(
            f"nop errored {nop['trials'] - nop['scored']} of {nop['trials']}"
            if nop["errored"] == nop["trials"] - nop["scored"]
            else f"nop unscored on {nop['trials'] - nop['scored']} of {nop['trials']}"
        )
    return ("not verified", gaps) if gaps else ("holds", [])
