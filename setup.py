"""The build step pyproject.toml cannot state: a wheel carries the workflow it runs.

`benchreport verify` re-runs a bundle with the installed workflow and compares that code with the
bundle's workflow-code/ by relative path and sha256. In a checkout (and an editable install) the
workflow tree is the checkout itself; a wheel gets a copy of the same tree, laid out the same way,
as package data in benchreport/<verify.WORKFLOW_COPY>/, so that verify finds and compares it the
same way wherever the package sits. The files are the ones a bundle records as the code that ran
(bundle.CODE_PATHS). Both names are read from the package's source without importing it: the build
has none of its dependencies.
"""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

from setuptools import Command, setup
from setuptools.command.build import build

PACKAGE = Path("workflow/scripts/benchreport")


def constant(module: str, name: str):
    """The literal value a module of the package assigns to `name` at its top level."""
    source = PACKAGE / module
    for node in ast.parse(source.read_text(encoding="utf-8"), str(source)).body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == name for target in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(f"{source} assigns no {name}")


def workflow_files() -> list[str]:
    """Every file of bundle.CODE_PATHS in this tree, as a relative POSIX path, but compiled
    modules and the metadata an editable install leaves beside the package (bundle.code_files
    leaves the same out)."""
    found = []
    for name in constant("archive/bundle.py", "CODE_PATHS"):
        base = Path(name)
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        found += [
            path.as_posix()
            for path in paths
            if not any(part == "__pycache__" or part.endswith(".egg-info") for part in path.parts)
        ]
    return found


class build_workflow(Command):
    """Copies the workflow tree into the built package; nothing in an editable install, whose
    package sits in the tree."""

    description = "copy the workflow tree into the package"
    user_options = []
    editable_mode = False

    def initialize_options(self):
        self.build_lib = None

    def finalize_options(self):
        self.set_undefined_options("build_py", ("build_lib", "build_lib"))

    def get_source_files(self) -> list[str]:
        return workflow_files()

    def copy_folder(self) -> str:
        return os.path.join(self.build_lib, "benchreport", constant("archive/verify.py", "WORKFLOW_COPY"))

    def get_output_mapping(self) -> dict[str, str]:
        if self.editable_mode:
            return {}
        return {os.path.join(self.copy_folder(), relpath): relpath for relpath in workflow_files()}

    def get_outputs(self) -> list[str]:
        return list(self.get_output_mapping())

    def run(self):
        if self.editable_mode:
            return
        # made anew: a file gone from the tree since an earlier build into this folder stays out
        shutil.rmtree(self.copy_folder(), ignore_errors=True)
        for target, source in self.get_output_mapping().items():
            self.mkpath(os.path.dirname(target))
            self.copy_file(source, target)


class build_with_workflow(build):
    sub_commands = [*build.sub_commands, ("build_workflow", None)]


setup(cmdclass={"build": build_with_workflow, "build_workflow": build_workflow})
