import atexit
import os
import sys
from pathlib import Path

import yaml
from snakemake.exceptions import IncompleteCheckpointException, WorkflowError
from snakemake_interface_executor_plugins.settings import DeploymentMethod
from snakemake.utils import validate

# The package beside the rules (workflow/scripts), found from this file rather than from the main
# Snakefile, which is the user's own when this workflow runs as a module (workflow.source_path
# would hand back a cached copy of one file, not the folder). It goes first for the scripts of
# the rules too, through PYTHONPATH (Snakemake appends a script's folder after site-packages), so
# the code that runs is the code the lineage hashes even where another benchreport is installed:
# a bundle's re-run runs the bundle's code. PYTHONPATH is set here, not required of the user.
# (Snakemake clears it for a job in a conda env; that env installs no benchreport, so the
# scripts' folder is the one found there too.)
SCRIPTS_DIR = Path(
    workflow.current_basedir.get_path_or_uri(secret_free=True), "..", "scripts"
).resolve()
sys.path.insert(0, str(SCRIPTS_DIR))
os.environ.update(
    PYTHONPATH=os.pathsep.join(
        filter(None, [str(SCRIPTS_DIR), os.getenv("PYTHONPATH")])
    )
)

from benchreport.pipeline import configcheck, lineage, outputs, planning, stamps
from benchreport.read import controls, discover, duplicates, environment
from benchreport.present import sentences
from benchreport.compute import shapes
from benchreport.pipeline.lineage import ingest_file, lineage_of  # noqa: E402
from benchreport.pipeline.stamps import INGESTED_RECORD, ingest_output  # noqa: E402


def with_lineage(**outputs):
    """A rule's outputs and, named lineage_<name>, the lineage record of each."""
    return outputs | {
        f"lineage_{name}": lineage_of(path) for name, path in outputs.items()
    }


def in_report(path, caption, subcategory, name):
    """An output as Snakemake's --report lists it, under Paper, with its caption."""
    return report(
        path,
        caption=f"../report/{caption}.rst",
        category="Paper",
        subcategory=subcategory,
        labels={"name": name, "format": path.rsplit(".", 1)[1].upper()},
    )


def paper_figure(name, fmt, label):
    """One format of one figure of rule run_report, as in_report lists it."""
    return in_report(f"results/paper/{name}.{fmt}", name, "Figures", label)


# The key, what is wrong and what is allowed, rather than Snakemake's message, which quotes the
# whole schema; then Snakemake's validate, which fills in the defaults.
CONFIG_SCHEMA = Path(SCRIPTS_DIR, "..", "..", "config", "schema.yaml")
CONFIG_PROBLEMS = configcheck.problems(
    config, yaml.safe_load(CONFIG_SCHEMA.read_text(encoding="utf-8"))
)
if CONFIG_PROBLEMS:
    raise WorkflowError("\n".join(CONFIG_PROBLEMS))
validate(config, schema="../../config/schema.yaml")


# Whether the jobs run in a conda env's Python (--sdm conda), not in the one running Snakemake
IN_CONDA_ENVS = DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method
# the facts every lineage record carries, found once for the run's jobs (lineage.RUN_FACTS)
os.environ[lineage.RUN_FACTS] = lineage.run_facts(software=not IN_CONDA_ENVS)

# The job folders under job_roots, found as the workflow is parsed (so a bad root is said at
# once); only listed, nothing read or written.
try:
    JOBS = discover.find_jobs(config["job_roots"])
except ValueError as error:
    raise WorkflowError(str(error)) from None
# job id -> its stamp (stamps.refresh_state); batch id -> its job folder ids, and back; the
# batches of the folders the control runs wrote, once all_jobs found them. Filled by
# plan_ingests when the DAG first asks.
STATES, BATCHES, BATCH_OF, CONTROL_BATCHES = {}, {}, {}, {}
# every job folder of the run, those the control runs wrote too, once all_jobs found them
CONTROL_JOBS = {}


def refresh(jobs):
    """(job id -> stamp, batch id -> job ids) of job folders, their duplicates compared among
    themselves (duplicates.find) and batched (stamps.plan_batches). The main process of a
    run writes the change state; a dry run plans from it without writing (a change shows as a
    due stamp, stamps.due_file); a cluster job's own parse reads it as its run left it.
    """
    if not workflow.is_main_process:
        return stamps.planned_states(jobs, config["ingest"]["max_requests"])
    write = not workflow.dryrun
    states, records = stamps.refresh_states(
        list(jobs.values()), config["ingest"]["max_requests"], write=write
    )
    found = duplicates.find(list(jobs.values()), config["job_roots"], records)
    stamps.write_duplicates(states, found, write)
    batches = stamps.plan_batches(jobs, records, states, write=write)
    return states, batches


def remember(states, batches, into):
    """Keep the stamps and batches refresh found: the batches in `into` (BATCHES or
    CONTROL_BATCHES), and each folder's batch in BATCH_OF."""
    STATES.update(states)
    into.update(batches)
    BATCH_OF.update(
        {job_id: batch for batch, members in batches.items() for job_id in members}
    )


def plan_ingests():
    """The stamps and batches of the job folders under job_roots, refreshed once, when the DAG
    first asks for them: --lint and the other commands that build no DAG never do."""
    if not STATES and JOBS:
        remember(*refresh(JOBS), into=BATCHES)
    return BATCHES


def batch_of(job_id):
    """The batch whose ingest reads a job folder."""
    plan_ingests()
    return BATCH_OF.get(job_id, job_id)


def all_batches():
    """batch id -> its job folder ids: those under job_roots, and, once all_jobs found them,
    those of the folders the control runs wrote, batched as a run that finds them under
    job_roots would (the bundle's re-run does)."""
    all_jobs()
    return plan_ingests() | CONTROL_BATCHES


CODE = {stage: lineage.stage_code(stage)["sha256"] for stage in lineage.STAGE_CODE}


wildcard_constraints:
    setting="[^/]+",
    image="[^/]+",
    kind="oracle|nop",


RUN_CONTROLS = config["controls"]["run"]


def all_jobs():
    """The job folders under job_roots, and those the control runs wrote (found once they ran)."""
    if not RUN_CONTROLS["enabled"]:
        return JOBS
    if CONTROL_JOBS:
        return CONTROL_JOBS
    for kind in controls.KINDS:
        checkpoints.controls.get(kind=kind)
    roots = [*config["job_roots"], RUN_CONTROLS["jobs_dir"]]
    found = [
        job
        for job in discover.find_job_folders(roots)
        if job.root == RUN_CONTROLS["jobs_dir"]
    ]
    # a folder also under job_roots has its stamp and batch from plan_ingests
    plan_ingests()
    written = {job.job_id: job for job in found if job.job_id not in JOBS}
    remember(*refresh(written), into=CONTROL_BATCHES)
    CONTROL_JOBS.update(JOBS | {job.job_id: job for job in found})
    return CONTROL_JOBS


def batch_members(batch):
    """The job folders of a batch: found at parse time, or written by a control run."""
    if batch in plan_ingests():
        return [JOBS[job_id] for job_id in BATCHES[batch]]
    found = all_jobs()
    return [found[job_id] for job_id in CONTROL_BATCHES[batch]]


def ingest_inputs(wildcards):
    """Each of the batch's folders' stamp file and duplicates file, and for a folder a control
    run wrote, the run's manifests."""
    states = [
        STATES[job.job_id] for job in batch_members(wildcards.batch)
    ]  # planned there
    inputs = {
        "state": states,
        "duplicates": [stamps.duplicates_file(state) for state in states],
    }
    if wildcards.batch in BATCHES:
        return inputs
    return inputs | {"control_runs": control_runs()}


def batch_params(wildcards):
    return [planning.job_params(job) for job in batch_members(wildcards.batch)]


JSON_CACHE = {}
DERIVED_CACHE = {}
INGESTED = []  # [True] once checkpoint ingested has answered


def ingested(job_id, name):
    """The file of a job folder's batch's ingest (index, tasks), once checkpoint ingested has
    run. Its output, once created, stays created for the rest of the run, so get() is asked
    until it answers once: it copies the set of every created checkpoint output on each call,
    and derived() below asks for every folder each time it is called."""
    if not INGESTED:
        checkpoints.ingested.get()
        INGESTED.append(True)
    return ingest_file(batch_of(job_id), name)


def file_state(path):
    """What tells a file's versions apart within a run without reading it: a rewrite renames a
    new file over it (another inode) or changes its ctime, which no utime can set back.
    """
    info = os.stat(path)
    return info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino


def read_cached(path):
    """(file_state, content) of a JSON file the input functions below ask for once per job of
    the DAG; it is read again only when it changes."""
    stamp = file_state(path)
    cached = JSON_CACHE.get(path)
    if cached is None or cached[0] != stamp:
        cached = JSON_CACHE[path] = (stamp, outputs.load_json(path))
    return cached


def job_index(job_id):
    """The settings, their tasks and counts one job folder holds (its index.json, available once
    its ingest has run)."""
    return read_cached(ingested(job_id, "index"))[1]["jobs"][job_id]


def job_tasks(job_id):
    """Per task of a job folder: the task paths and digests its trials name (tasks.json, read
    only to resolve task images: a tenth of the size of the rest of the index at 1,000 tasks
    per folder, and nothing else needs it)."""
    return read_cached(ingested(job_id, "tasks"))[1]["jobs"][job_id]["tasks"]


def derived(name, compute):
    """compute() once per state of the index files (file_state) in this process: the input
    functions ask for the same plan once per job of the DAG."""
    paths = list(dict.fromkeys(ingested(job_id, "index") for job_id in all_jobs()))
    state = tuple((path, file_state(path)) for path in paths)
    if (name, state) not in DERIVED_CACHE:
        if len(DERIVED_CACHE) > 32:
            DERIVED_CACHE.clear()
        DERIVED_CACHE[name, state] = compute()
    return DERIVED_CACHE[name, state]


def settings_map():
    """setting id -> (jobs holding it, its tasks, whether it is a control)."""
    return derived("settings", compute_settings_map)


def compute_settings_map():
    found = {}
    for job_id in all_jobs():
        for setting, entry in job_index(job_id)["settings"].items():
            item = found.setdefault(
                setting,
                {"jobs": [], "tasks": set(), "control": entry["key"]["control"]},
            )
            item["jobs"].append(job_id)
            item["tasks"].update(entry["tasks"])
    return found


# what a task whose controls fail, or are not verified, does
CONTROLS_POLICY = {
    key: config["controls"][key] for key in ("on_failure", "on_unverified")
}


def stats_jobs(setting):
    """The setting's own job folders, plus those holding controls on any of its tasks."""
    found = settings_map()
    mine = found[setting]
    jobs = set(mine["jobs"])
    if not mine["control"]:
        for other in found.values():
            if other["control"] and other["tasks"] & mine["tasks"]:
                jobs.update(other["jobs"])
    return sorted(jobs)


def setting_profiles():
    """setting id -> its shape (tasks x tries, planned from the folders' index.json by
    benchreport.compute.shapes; None when no task was scored), once per state of the index files: the
    stats jobs and coverage_threads read the same plan."""

    def plan():
        return {
            setting: shapes.planned_profile(
                setting,
                [job_index(job_id) for job_id in stats_jobs(setting)],
                CONTROLS_POLICY,
            )
            for setting in settings_map()
        }

    return derived("profiles", plan)


def run_cores():
    """The run's --cores; 1 without (a dry run, some executors)."""
    try:
        return workflow.cores
    except WorkflowError:
        return 1


def coverage_threads(wildcards):
    """The cores shared out among the run's coverage designs: one design alone takes them all
    (its families and blocks share the threads), several run side by side on one each, beside
    the other jobs, rather than one after the other on all of them."""
    try:
        planned = set(setting_profiles().values()) - {None}
    # a design asked for by name before any ingest
    except IncompleteCheckpointException:
        return run_cores()
    return max(1, run_cores() // max(1, len(planned)))


def ingest_threads(wildcards):
    """A thread per job folder of the batch, up to --cores: its folders are read side by side."""
    return min(len(batch_members(wildcards.batch)), run_cores())


def task_images():
    """task -> where its image reference came from (planning.task_images)."""
    return derived(
        "images",
        lambda: planning.task_images(
            [job_tasks(job_id) for job_id in all_jobs()], config["environment"]
        ),
    )


def images_by_slug():
    """image slug (the wildcard) -> the resolution of the image it names."""
    return derived("slugs", lambda: planning.images_by_slug(task_images()))


def image_param(field):
    """A params function: one field of the image a wildcard names."""

    def lookup(wildcards):
        by_slug = images_by_slug()
        if wildcards.image not in by_slug:
            raise WorkflowError(f"no task resolves to the image {wildcards.image}")
        return by_slug[wildcards.image].get(field)

    return lookup


def kept_record(path):
    """An inspection record already written, or None."""
    try:
        return read_cached(path)[1]
    except (OSError, ValueError):
        return None


def planned_reads(setting):
    """The files of planning.PLANNED_FILE_FOLDERS a setting's report reads: the coverage design
    at its shape, and the inspection records of its tasks' images."""
    profile = setting_profiles()[setting]
    reads = {}
    if profile is not None:
        reads["coverage"] = shapes.coverage_file(profile)
    if config["environment"]["inspect"]:
        tasks = settings_map()[setting]["tasks"]
        reads["images"] = planning.report_images(task_images(), tasks)
    return reads


def report_inputs(wildcards):
    """The ingested trials of stats_jobs (their batches': the stage keeps only those of the job
    folders of stats_jobs), and the setting's planned_reads."""
    batches = (batch_of(job_id) for job_id in stats_jobs(wildcards.setting))
    return {"trials": list(dict.fromkeys(map(ingest_output, batches)))} | planned_reads(
        wildcards.setting
    )


def report_environment(wildcards):
    """Per task of the setting: its image resolution and the record that inspects it, with the
    digests its trials in the setting's own job folders record (planning.report_environment).
    """
    if not config["environment"]["inspect"]:
        return []
    setting = settings_map()[wildcards.setting]
    digests = planning.task_digests([job_tasks(job_id) for job_id in setting["jobs"]])
    return planning.report_environment(task_images(), setting["tasks"], digests)


def control_runs():
    """The manifests of the control runs the config asks for."""
    kinds = controls.KINDS if RUN_CONTROLS["enabled"] else ()
    return [f"results/controls/run-{kind}.json" for kind in kinds]


def user_ingests(wildcards):
    """The ingest of every job folder found at parse time, and the control runs they call for
    (no checkpoint involved): all enter the first DAG, so the oracle and nop runs go at once
    rather than one after the other, as all_jobs would ask for them."""
    return [ingest_output(batch) for batch in plan_ingests()] + control_runs()


def setting_outputs(wildcards):
    """Every output of rule report, for every setting."""
    return [
        path.format(setting=setting)
        for setting in sorted(settings_map())
        for path in rules.report.output
    ]


def get_final_outputs(wildcards):
    """The default target's outputs (checkpoint ingested's, each run-level stage's and
    each setting report's) and the control runs' manifests."""
    stages = (rules.ingested, rules.run_report)
    return (
        [path for stage in stages for path in stage.output]
        + control_runs()
        + setting_outputs(wildcards)
    )


def ingests_known():
    """Whether checkpoint ingested ran or was current in this run, so that the plan over every
    job folder is known (a run of one target before it, say a coverage design, has none).
    """
    try:
        checkpoints.ingested.get()
    except IncompleteCheckpointException:
        return False
    return True


def remove_stale_outputs():
    """onsuccess: remove the outputs of settings, job folders, tries profiles and task images no
    longer found (planning.remove_stale_outputs), once a run that planned every job folder has
    made everything else."""
    if not ingests_known():
        return
    removed = planning.remove_stale_outputs(
        Path("results"), set(settings_map()), set(all_batches()), planned_files()
    )
    if removed:
        print(
            f"Removed {len(removed)} outputs of settings, job folders, tries profiles or "
            "task images no longer found: "
            + ", ".join(removed[:10])
            + (" …" if len(removed) > 10 else ""),
            file=sys.stderr,
        )


def planned_files():
    """The planned_reads of this run's settings, under results/."""
    return {
        path.removeprefix("results/")
        for reads in map(planned_reads, settings_map())
        for path in [reads.get("coverage"), *reads.get("images", [])]
        if path
    }


def per_setting(output):
    """An input function: rule report's output `output`, for every setting in name order."""
    return lambda wildcards: [
        rules.report.output[output].format(setting=setting)
        for setting in sorted(settings_map())
    ]


# what the run-level stages read of a setting: its record, its numbers (which the figures and
# the comparisons are computed from), its trial rows, and the trials report.html lists of it
setting_summaries = per_setting("summary")
setting_numbers = per_setting("stats")
setting_trials = per_setting("trials")
setting_pages = per_setting("page")


def run_report_inputs(wildcards):
    """What rule run_report reads of every setting, and every job folder's ledger."""
    return {
        "numbers": setting_numbers(wildcards),
        "summaries": setting_summaries(wildcards),
        "trials": setting_trials(wildcards),
        "pages": setting_pages(wildcards),
        "ledgers": [ingest_file(batch, "ledger") for batch in all_batches()],
    }


def say_where_results_are(outputs):
    """onsuccess: the run's last lines say where its results are, each output that exists
    relative to the folder the run was started in, and how to inspect again the task images
    it could not inspect. Printed at exit: after Snakemake's log hint and elapsed time, which
    follow onsuccess, and once its --directory is left."""
    written = [os.path.abspath(path) for path in outputs if os.path.exists(path)]
    not_inspected = []
    environment_settings = config["environment"]
    if (
        environment_settings["inspect"]
        and not environment_settings["records_from"]
        and ingests_known()
    ):
        not_inspected = planning.failed_references(images_by_slug(), kept_record)
    if written:
        atexit.register(
            lambda: print(
                sentences.results_are_in(
                    [os.path.relpath(path) for path in written],
                    len(not_inspected),
                    environment.REFRESH,
                ),
                file=sys.stderr,
            )
        )
