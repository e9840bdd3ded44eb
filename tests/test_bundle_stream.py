"""The streaming parts of bundle and verify, in process: the RO-Crate's JSON written piece by
piece, the tar.gz written member by member, the manifest checked line by line."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import random
import tarfile
import threading
from pathlib import PurePosixPath

import pytest
from benchreport.archive import bundle, rocrate
from benchreport.archive import verify as verifier
from hypothesis import given, settings
from hypothesis import strategies as st


def written(value) -> str:
    out = io.StringIO()
    rocrate.write_json(out, value)
    return out.getvalue()


def as_lists(value):
    if isinstance(value, rocrate.Refs):
        return [{"@id": item} for item in value.items]
    if isinstance(value, rocrate.Lazy):
        return [as_lists(item) for item in value.items]
    if isinstance(value, dict):
        return {key: as_lists(item) for key, item in value.items()}
    return value


@pytest.mark.parametrize("count", [0, 1, 2, 5])
def test_the_crate_writer_gives_json_dumps_bytes(count):
    """Lazy lists at the top, in a dict's values and inside another Lazy, empty or not, beside
    plain values that hold newlines, quotes and non-ASCII text: the same text json.dumps writes."""

    def value():
        return {
            "@context": ["a", {"sha256": "http://schema.org/sha256"}],
            "@graph": rocrate.Lazy(
                [
                    {"@id": "x", "note": 'two\nlines and a "quote" and é ✓', "n": 3.5, "empty": {}, "none": []},
                    {"@id": "y", "hasPart": rocrate.Lazy({"@id": f"f{i}"} for i in range(count))},
                    {"@id": "z", "object": rocrate.Refs(f'jobs/é\u2028 "{i}"' for i in range(count))},
                    rocrate.Refs(iter(["r"] * count)),
                    rocrate.Lazy([rocrate.Lazy([]), {"k": rocrate.Lazy(iter(range(count)))}]),
                    {"plain": [1, [2, {"deep": "v"}]]},
                    {"@id": "flat", "yes": True, "no": None, "i": 7, "f": -0.5, "é": "ü\t\u2028", "n": float("nan")},
                ]
            ),
        }

    expected = json.dumps(as_lists(value()), indent=2, ensure_ascii=False)
    assert written(value()) == expected


def test_refs_is_ref_of_the_same_ids():
    for ids in ([], ["a"], ["a", "b", "c"]):
        assert as_lists(rocrate.refs(ids)) == rocrate.ref(ids)


def members(path):
    with tarfile.open(path) as tar:
        return [
            (m.name, m.type, m.mode, m.mtime, m.uid, m.uname, tar.extractfile(m).read() if m.isreg() else None)
            for m in tar
        ]


def test_the_archive_is_deterministic_and_reads_back(tmp_path):
    """One 512-byte header a member whose name fits ustar's split (nearly all: >100 characters
    here), GNU's long name for one that does not; tarfile and the bytes agree, twice over."""
    long_name = "jobs/" + "/".join(["d" * 60] * 5) + "/result.json"  # 300+ characters: no ustar split
    deep = "jobs/claude-sonnet-high-x25/claude-sonnet-4-5-high/job-001/task-0001__0123abcd/trajectory/llm.jsonl"
    entries = [("jobs", None), ("jobs/a.json", b"{}"), (deep, b"x" * 1000), (long_name, b"y")]

    def write(target):
        archive = bundle.Archive(target, "b", tmp_path, keep=lambda name: name.endswith(".json"))
        for name, data in entries:
            archive.folder(name) if data is None else archive.add(name, data)
        with open(tmp_path / "big", "w+b") as handle:
            handle.write(b"z" * 70_000)
            archive.add_file("MANIFEST.sha256", handle)
        assert archive.read("jobs/a.json") == b"{}"
        files = dict(archive.files)
        archive.close()
        return files

    files = write(tmp_path / "one.tar.gz")
    write(tmp_path / "two.tar.gz")
    assert (tmp_path / "one.tar.gz").read_bytes() == (tmp_path / "two.tar.gz").read_bytes()
    read = members(tmp_path / "one.tar.gz")
    assert [m[0] for m in read] == ["b/jobs", "b/jobs/a.json", f"b/{deep}", f"b/{long_name}", "b/MANIFEST.sha256"]
    assert all(m[3] == 0 and m[4] == 0 and m[5] == "" for m in read)
    assert [m[1] for m in read] == [tarfile.DIRTYPE] + [tarfile.REGTYPE] * 4
    assert read[-1][6] == b"z" * 70_000
    for name, _, _, _, _, _, data in read[1:]:
        assert files[name[2:]] == (len(data), hashlib.sha256(data).digest())
    raw = gzip.decompress((tmp_path / "one.tar.gz").read_bytes())
    assert len(raw) % tarfile.RECORDSIZE == 0
    # the 100-plus-character name takes one header: its data block follows its only header
    at = raw.index(b"x" * 1000)
    header = raw[at - 512 : at]
    name, prefix = header[:100].rstrip(b"\0"), header[345:500].rstrip(b"\0")
    assert header[257:262] == b"ustar" and prefix + b"/" + name == f"b/{deep}".encode()
    assert b"././@LongLink" in raw and raw.count(b"././@LongLink") == 1  # only the 300-character one


def test_the_second_pass_writes_one_gzip_member_of_every_file_in_order(tmp_path):
    """The archive twice gives the same bytes: gzip's header without a name or time, one gzip
    member whose CRC-32 and length gzip checks, every member and hash back in order, the kept
    files readable, a secret found by the first pass in one file redacted in another, and the
    archive's own files after the planned ones."""
    secret = "sk-ant-api03-PLANTEDplantedPLANTED0123456789abcdef"
    plan = {
        f"jobs/j/t__{i:02d}/result.json": ("bytes", json.dumps({"i": i, "n": "x" * (37 * i)}).encode())
        for i in range(20)
    }
    plan["jobs/j/t__00/result.json"] = ("bytes", json.dumps({"note": secret}).encode())
    plan["results/lineage/a.json"] = ("bytes", b'{"rule": "a"}')
    plan["zz/last.txt"] = ("bytes", f"the last share holds {secret} too".encode())
    directories = {"jobs", "jobs/j", *(f"jobs/j/t__{i:02d}" for i in range(20))}

    def write(name):
        target = tmp_path / f"{name}.tar.gz"
        found = bundle.scan(plan, directories, tmp_path)
        archive = bundle.Archive(target, "b", tmp_path, keep=lambda name: name.startswith("results/lineage/"))
        hits = bundle.write_members(archive, plan, found)
        found.raw.close()
        assert archive.read("results/lineage/a.json") == b'{"rule": "a"}'
        archive.add("README.md", b"made last")
        files = dict(archive.files)
        archive.close()
        return target.read_bytes(), files, bundle.sort_hits(hits)

    one = write("one")
    assert write("two") == one
    data, files, hits = one
    assert data[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # no name, mtime 0
    raw = gzip.decompress(data)  # checks the trailer's CRC-32 and length
    assert len(raw) % tarfile.RECORDSIZE == 0 and secret.encode() not in raw
    assert [hit["file"] for hit in hits] == ["jobs/j/t__00/result.json", "zz/last.txt"]
    read = members(tmp_path / "one.tar.gz")
    assert len(read) == len(plan) + len(directories) + 1 and read[-1][0] == "b/README.md"
    assert list(files) == [name[2:] for name, kind, *_ in read if kind == tarfile.REGTYPE]
    for name, kind, _, _, _, _, content in read:
        if kind == tarfile.REGTYPE:
            assert files[name[2:]] == (len(content), hashlib.sha256(content).digest())


def tiny(path, files: dict[str, bytes], manifest: bytes) -> str:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in {**files, "MANIFEST.sha256": manifest}.items():
            info = tarfile.TarInfo(f"b/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return str(path)


def line(name: str, data: bytes) -> str:
    return f"{hashlib.sha256(data).hexdigest()}  {name}\n"


def test_the_manifest_is_checked_line_by_line_both_ways(tmp_path):
    files = {"config.yaml": b"job_roots: []\n", "results/a.json": b"1", "results/b.json": b"2", "extra": b"e"}
    text = line("config.yaml", files["config.yaml"]) + line("results/a.json", b"changed") + line("gone", b"")
    text += line("results/b.json", files["results/b.json"])
    _, hashes, small = verifier.read_archive(
        tiny(tmp_path / "t.tar.gz", files, text.encode()),
        tmp_path / "out",
        keep_code=False,
        limits=verifier.Limits(1 << 20, 1 << 30, 1000),
        progress=lambda said: None,
    )
    assert all(isinstance(digest, bytes) for digest in hashes.values())
    listed = dict(verifier.manifest_lines(small["MANIFEST.sha256"]))
    expected = [
        "not in the manifest: extra",
        "missing: gone",
        "changed (sha256 differs from the manifest): results/a.json",
    ]
    problems, kept, count = verifier.check_listing(
        verifier.manifest_lines(small["MANIFEST.sha256"]), dict(hashes), lambda name: name.startswith("results/")
    )
    assert problems == expected and count == 4
    assert kept == {
        "results/a.json": hashlib.sha256(b"changed").hexdigest(),
        "results/b.json": listed["results/b.json"],
    }
    for twice in (line("config.yaml", b"x"), line("gone", b"")):  # a member's line, a missing one's
        with pytest.raises(verifier.Refused, match="lists .* twice"):
            verifier.check_listing(verifier.manifest_lines((text + twice).encode()), dict(hashes), lambda n: False)
    # lines end where str.splitlines ends them, an empty line among them
    for bad, number in ((text + "\n" + line("x", b""), 5), (line("a\u2028b", b"") + text, 2)):
        with pytest.raises(verifier.Refused, match=f"line {number} is not"):
            list(verifier.manifest_lines(bad.encode()))


def test_job_folder_paths_map_to_their_bundled_names():
    files = {"jobs/r/j1/t__1/result.json": (1, b""), "jobs/r/j1/summary.json": (1, b""), "jobs/x/a.json": (1, b"")}
    find = bundle.source_of({"/data/r/j1": "jobs/r/j1", ".": "jobs/x"}, files)
    assert find("/data/r/j1/t__1/result.json") == "jobs/r/j1/t__1/result.json"
    assert find("/data/r/j1/summary.json") == "jobs/r/j1/summary.json"
    assert find("/data/r/j1/t__1/config.json") is None  # not bundled
    assert find("/data/r/j2/summary.json") is None
    assert find("a.json") == "jobs/x/a.json"  # a root "." that is itself a job folder


def test_the_inflater_reads_what_gzip_wrote_and_notices_a_cut():
    for size in (0, 1000, 65_536, 3_000_000):
        data = bytes(range(256)) * (size // 512) + bytes(size - size // 512 * 256)
        for level in (1, 9):
            packed = gzip.compress(data, compresslevel=level, mtime=0)
            assert verifier.inflated(io.BytesIO(packed)).read() == data
            if size:
                with pytest.raises(EOFError, match="truncated"):
                    verifier.inflated(io.BytesIO(packed[: len(packed) - 12])).read()
    # the trailer is not checked (as tarfile's r|gz does not): a member is refused for its header
    packed = bytearray(gzip.compress(b"x" * 100, mtime=0))
    packed[-8] ^= 0xFF
    assert verifier.inflated(io.BytesIO(bytes(packed))).read() == b"x" * 100
    with pytest.raises(tarfile.ReadError, match="not a gzip file"):
        verifier.Inflate(io.BytesIO(b"plain text, not gzip"))


def test_the_crate_writer_leaves_nothing_behind_with_the_collector_off():
    """Rule jobs run with the cyclic collector off (lineage.start_job): json.dumps with indent= leaves
    a cycle of closures per call, which one call per entity turned into gigabytes at 700,000 files."""
    import gc

    def crate(count):
        entities = (
            {"@id": f"f{i}", "@type": "File", "contentSize": str(i), "parts": [i, {"a": None}]} for i in range(count)
        )
        return {"@context": "c", "@graph": rocrate.Lazy(entities)}

    rocrate.write_json(io.StringIO(), crate(10))  # anything made once (caches) is made here
    enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        before = len(gc.get_objects())
        rocrate.write_json(io.StringIO(), crate(2000))
        left = len(gc.get_objects()) - before
    finally:
        if enabled:
            gc.enable()
    assert left < 100, left


def test_the_temporary_tree_is_removed_whole_and_links_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("kept")
    root = tmp_path / "rerun"
    for job in range(70):  # more folders at one level than `enough`: removed side by side
        for trial in range(3):
            folder = root / "jobs" / "label" / f"job-{job}" / f"t__{trial}"
            folder.mkdir(parents=True)
            (folder / "result.json").write_text("{}")
    (root / "results").mkdir()
    (root / "results" / "index.md").write_text("x")
    (root / "jobs" / "label" / "job-3" / "link").symlink_to(outside)
    (root / "top-link").symlink_to(outside)
    verifier.remove_tree(root, enough=10)
    assert not root.exists()
    assert (outside / "keep.txt").read_text() == "kept"
    verifier.remove_tree(root)  # nothing there: nothing to do


def test_the_rerun_copy_of_the_job_folders_goes_once_its_ingests_are_done(tmp_path):
    """InputsRemover: nothing removed while the checkpoint's record is absent, the job folders
    (only) once it is there, and finish() returns with or without it."""
    work = tmp_path / "rerun"
    (work / "jobs" / "label" / "t__1").mkdir(parents=True)
    (work / "jobs" / "label" / "t__1" / "result.json").write_text("{}")
    (work / "results").mkdir()
    lines = []
    remover = verifier.InputsRemover(work / verifier.INGESTED_RECORD, work / "jobs", lines.append)
    remover.start()
    remover.ended.wait(0.5)  # a while without the record: whatever the timing, nothing to remove
    assert (work / "jobs").is_dir() and lines == []
    (work / verifier.INGESTED_RECORD).write_text("{}")
    remover.join(60)  # it polls for the record every 0.2 s
    assert not remover.is_alive() and not (work / "jobs").exists() and (work / "results").is_dir()
    assert lines == ["re-run: every ingest done; removing its copy of the job folders meanwhile"]

    (work / "jobs").mkdir()
    never = verifier.InputsRemover(work / "nothing-here", work / "jobs", lines.append)
    never.start()
    never.ended.set()  # the re-run ended without the record
    never.join(60)
    assert not never.is_alive() and (work / "jobs").is_dir()


def test_a_rerun_that_cannot_start_leaves_no_remover_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(verifier.sys, "executable", str(tmp_path / "no-such-python"))
    before = set(threading.enumerate())
    with pytest.raises(OSError):
        verifier.run_snakemake(tmp_path, 1, lambda line: None, remove_inputs=True)
    for thread in set(threading.enumerate()) - before:  # told to stop: it ends at its next poll
        thread.join(60)
        assert not thread.is_alive()


def test_the_reruns_files_are_made_with_their_bytes(tmp_path):
    """FileMaker: folders, empty and small files, and one larger than a read (streamed in chunks,
    as stream_file hands it), with their bytes."""
    rng = random.Random(7)
    files = {
        "jobs/a/t__00000001/result.json": b'{"reward": 1.0}',
        "jobs/a/t__00000001/timing.json": b"",
        "jobs/a/t__00000002/trajectory/llm_trajectory.jsonl": rng.randbytes(3 << 20),
        "jobs/b/summary.json": "caf\u00e9 \u2713".encode(),
    }
    maker = verifier.FileMaker()
    maker.folder(str(tmp_path / "jobs/a/t__00000003"))  # an attempt folder with only a verifier file
    for name, data in files.items():
        with maker.file(str(tmp_path / name)) as sink:
            assert verifier.stream_file(io.BytesIO(data), len(data), [sink]) == hashlib.sha256(data).digest()
    made = {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert made == files
    assert (tmp_path / "jobs/a/t__00000003").is_dir()


def test_a_file_that_cannot_be_made_stops_the_making_and_is_named(tmp_path):
    """A file where a folder has to be (file "x", then the folder "x/folder") is Unwritable,
    naming the place, at once: "z", which would come after it, is not made."""
    maker = verifier.FileMaker()
    with pytest.raises(verifier.Unwritable, match=f"Not a directory: {tmp_path}/x/folder$"):
        for name in ("x", "z"):
            with maker.file(str(tmp_path / name)) as sink:
                sink.write(b"ok")
            maker.folder(str(tmp_path / name / "folder"))
    assert (tmp_path / "x").read_bytes() == b"ok" and not (tmp_path / "z").exists()


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.text(alphabet="ab.T_-", min_size=1, max_size=6).filter(lambda p: p not in (".", "..")),
        min_size=1,
        max_size=4,
    )
)
def test_a_files_name_and_media_type_are_pathlibs(parts):
    """The crate's file entities take a name's last part and its suffix by string operations, not
    from a PurePosixPath each: the same as pathlib's on the clean relative paths a bundle holds
    (dots first, last and doubled, upper case, a hidden ".json", Snakefile among them)."""
    for last in ("", "Snakefile", "x.JSON", ".json", "a.json.", "a..json"):
        name = "/".join([*parts, last] if last else parts)
        path = PurePosixPath(name)
        special = {"Snakefile": "text/x-snakemake", "Dockerfile": "text/x-dockerfile"}
        expected = special.get(path.name) or rocrate.MEDIA_TYPES.get(path.suffix.lower())
        assert rocrate.base_name(name) == path.name and rocrate.media_type(name) == expected


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from("ab/.\u00e9\u2713\udcff"), min_size=1, max_size=40), min_size=1, max_size=8
    ),
    st.one_of(st.none(), st.integers(0, 8**11 + 1)),
)
def test_the_archives_headers_are_tarfiles(parts, size):
    """bundle.ustar_header gives the bytes TarInfo.tobuf(USTAR_FORMAT) gives, or the same
    ValueError: names short and past 100 and 255 bytes, with slashes where a split may fall,
    non-ASCII and undecodable characters, folders, sizes up to and past ustar's largest."""
    name = "benchreport/" + "/".join(parts)
    try:
        expected = bundle.tar_info(name, size).tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape")
    except ValueError as error:
        with pytest.raises(ValueError, match=str(error)):
            bundle.ustar_header(name, size)
    else:
        assert bundle.ustar_header(name, size) == expected
