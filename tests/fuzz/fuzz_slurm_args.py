#!/usr/bin/env python3
"""fuzz_slurm_args.py SECONDS SOURCE_DIR DB - Hypothesis harness of the Slurm
scripts' arguments (docs/FUZZING.md, docs/SLURM.md): scripts/slurm/array.sh
--dry-run with a --partition, --time, --runs-root, --bin and run arguments
of any characters (quotes, %, $, backslashes, newlines and other control
characters among them). It must exit 0 or 2, every line on stderr "array.sh: ..." with no control
character (a refusal's value is shown quoted); on 0, every line of both batch
scripts it prints is one of the forms array.sh writes (#!/bin/bash, a
comment, an #SBATCH line, one exec line), the #SBATCH values are exactly
the ones given, no #SBATCH line holds % but the log's %a, and bash -n
accepts each script."""
import os
import re
import subprocess
import sys
import tempfile
import shutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyfuzz  # noqa: E402

seconds, src, db = float(sys.argv[1]), sys.argv[2], sys.argv[3]
pyfuzz.need_hypothesis("fuzz_slurm_args")
from hypothesis import given, strategies as st  # noqa: E402

array = os.path.join(src, "scripts/slurm/array.sh")
work = tempfile.mkdtemp(prefix="se-fuzz-slurm-")
SPECIAL = "\"'%$\\`;&|<>(){}[]*?!#~= \t\n\r\x1b\x07\x00"
chars = st.one_of(st.sampled_from(list(SPECIAL)), st.sampled_from("abcXYZ019._-:/,+@"),
                  st.characters(min_codepoint=0x80, max_codepoint=0x2FF))
word = st.text(alphabet=chars, min_size=1, max_size=10).map(lambda s: s.replace("\x00", ""))
word = word.filter(lambda s: s != "")
opt = st.one_of(st.none(), word)
LINE = re.compile(r"^(#!/bin/bash|# .*|#SBATCH --[a-z-]+=.*|exec .*)$")


def scripts(out):
    """The two batch scripts of a dry run's output."""
    parts = re.split(r"^# \S+/(?:array|merge)\.sbatch:\n", out, flags=re.M)
    assert len(parts) == 3, out
    return [p.split("\narray_id=")[0].rstrip("\n") for p in parts[1:]]


@given(opt, opt, opt, opt, st.lists(word, max_size=3))
def dry_run(partition, time_limit, runs_root, binary, run_args):
    pyfuzz.Counter.n += 1
    args = [array, "-N", "2", "--dry-run"]
    for name, v in (("--partition", partition), ("--time", time_limit),
                    ("--runs-root", runs_root), ("--bin", binary)):
        if v is not None:
            args += [name, v]
    args += ["--"] + run_args
    p = subprocess.run(args, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    out = p.stdout.decode("utf-8", "surrogateescape")
    err = p.stderr.decode("utf-8", "surrogateescape")
    assert p.returncode in (0, 2), (p.returncode, err)
    lines = err.splitlines()
    assert all(l.startswith("array.sh: ") for l in lines), err
    assert not any(ord(c) < 0x20 and c != "\n" or ord(c) == 0x7F for c in err), err
    if p.returncode == 2:
        assert lines, err
        return
    for s in scripts(out):
        lines = s.split("\n")
        assert sum(l.startswith("exec ") for l in lines) == 1, s
        for line in lines:
            assert LINE.match(line), (line, s)
            if line.startswith("#SBATCH") and "%" in line:
                assert re.fullmatch(r"#SBATCH --output=\S+/logs/task-%a\.out", line), line
        if partition:
            assert f"#SBATCH --partition={partition}" in lines, s
        assert subprocess.run(["bash", "-n"], input=s.encode()).returncode == 0, s
    if time_limit:
        assert f"#SBATCH --time={time_limit}" in scripts(out)[0].split("\n")


try:
    pyfuzz.run_for("fuzz_slurm_args", seconds, db, dry_run)
finally:
    shutil.rmtree(work, ignore_errors=True)
