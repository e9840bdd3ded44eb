"""`python -m benchreport verify <bundle>`: check a bundle and re-run its report stages.

Unpacks into a temporary folder, refusing absolute paths, `..`, links and anything but plain
files and folders; checks MANIFEST.sha256 both ways; re-runs the workflow code in the bundle on
the bundled job-folder files alone; compares every output it makes again byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

NOT_RERUN = ("results/lineage/", "results/bundle/", "results/controls/")


class UnsafeArchive(Exception):
    pass


def safe_members(tar: tarfile.TarFile, target: Path) -> list[tarfile.TarInfo]:
    """Every member, after refusing anything that could write outside `target`."""
    members = tar.getmembers()
    root = os.path.realpath(target)
    for member in members:
        path = PurePosixPath(member.name)
        if path.is_absolute() or member.name.startswith(("/", "\\")):
            raise UnsafeArchive(f"absolute path refused: {member.name}")
        if ".." in path.parts:
            raise UnsafeArchive(f"path with '..' refused: {member.name}")
        if member.issym() or member.islnk():
            link_target = os.path.realpath(os.path.join(root, os.path.dirname(member.name), member.linkname))
            where = "outside the bundle" if not link_target.startswith(root + os.sep) else "inside the bundle"
            raise UnsafeArchive(f"link refused ({where}): {member.name} -> {member.linkname}")
        if not (member.isfile() or member.isdir()):
            raise UnsafeArchive(f"special file refused: {member.name}")
        destination = os.path.realpath(os.path.join(root, member.name))
        if destination != root and not destination.startswith(root + os.sep):
            raise UnsafeArchive(f"path outside the folder refused: {member.name}")
    return members


def unpack(bundle: Path, target: Path) -> Path:
    with tarfile.open(bundle, "r:gz") as tar:
        members = safe_members(tar, target)
        tar.extractall(target, members=members, filter="data")
    tops = {PurePosixPath(m.name).parts[0] for m in members}
    if len(tops) != 1:
        raise UnsafeArchive(f"expected one top folder, found {sorted(tops)}")
    return target / tops.pop()


def check_manifest(root: Path) -> list[str]:
    problems = []
    listed = {}
    for line in (root / "MANIFEST.sha256").read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        listed[name] = digest
    present = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {"MANIFEST.sha256"}
    for name in sorted(present - set(listed)):
        problems.append(f"not in the manifest: {name}")
    for name, digest in sorted(listed.items()):
        path = root / name
        if not path.is_file():
            problems.append(f"missing: {name}")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            problems.append(f"changed (sha256 differs from the manifest): {name}")
    return problems


def rerun(root: Path, work: Path, cores: int) -> subprocess.CompletedProcess:
    """Run the bundled workflow code on the bundled jobs into a fresh folder."""
    shutil.copytree(root / "workflow-code", work)
    for name in ("jobs", "replay"):
        if (root / name).exists():
            shutil.copytree(root / name, work / name)
    shutil.copy(root / "config.yaml", work / "bundle-config.yaml")
    command = [sys.executable, "-m", "snakemake", "--cores", str(cores), "--configfile", "bundle-config.yaml",
               "--scheduler", "greedy", "--quiet", "rules"]
    return subprocess.run(command, cwd=work, capture_output=True, text=True)


def compare(root: Path, work: Path) -> tuple[list[str], int]:
    differences, compared = [], 0
    for path in sorted((root / "results").rglob("*")):
        name = path.relative_to(root).as_posix()
        if not path.is_file() or name.startswith(NOT_RERUN):
            continue
        again = work / name
        compared += 1
        if not again.is_file():
            differences.append(f"not made again: {name}")
        elif again.read_bytes() != path.read_bytes():
            differences.append(f"differs: {name}")
    return differences, compared


def verify(bundle: str, cores: int = 2, out=sys.stdout) -> int:
    with tempfile.TemporaryDirectory(prefix="benchreport-verify-") as temporary:
        temporary = Path(temporary)
        try:
            root = unpack(Path(bundle), temporary / "unpacked")
        except (UnsafeArchive, tarfile.TarError, OSError) as exc:
            print(f"REFUSED: {exc}", file=out)
            return 2
        problems = check_manifest(root)
        for problem in problems:
            print(f"MANIFEST: {problem}", file=out)
        if problems:
            return 1
        print(f"manifest: {sum(1 for _ in root.rglob('*') if _.is_file()) - 1} files match", file=out)
        done = rerun(root, temporary / "rerun", cores)
        if done.returncode != 0:
            print("re-run FAILED:\n" + done.stdout[-4000:] + done.stderr[-4000:], file=out)
            return 1
        differences, compared = compare(root, temporary / "rerun")
        for difference in differences:
            print(difference, file=out)
        print(f"re-run: {compared - len(differences)} of {compared} outputs byte-identical", file=out)
        return 1 if differences else 0
