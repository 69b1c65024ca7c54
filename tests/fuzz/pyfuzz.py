"""pyfuzz.py - what the Python harnesses of tests/fuzz share (fuzz_merge.py,
fuzz_slurm_args.py; docs/FUZZING.md): Hypothesis (Debian python3-hypothesis,
scripts/deps.sh) run for a number of seconds, not of examples, with its
example database kept in build-fuzz/corpus/<harness>/ like libFuzzer's
corpus, and a last line like libFuzzer's final stats. Where Hypothesis is
missing the harness exits 77 saying so."""
import os
import sys
import tempfile
import time

# Hypothesis keeps its own files in .hypothesis/ of the current folder
# unless told otherwise: not in the worktree.
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY",
                      os.path.join(tempfile.gettempdir(), "se-hypothesis"))
try:
    import hypothesis
    from hypothesis import HealthCheck, settings
    from hypothesis.database import DirectoryBasedExampleDatabase
except ImportError:  # pragma: no cover - depends on the machine
    hypothesis = None


def need_hypothesis(name):
    if hypothesis is None:
        print(f"{name}: SKIP: Python's hypothesis is not installed (scripts/deps.sh installs "
              "python3-hypothesis)")
        sys.exit(77)


class Counter:
    n = 0


def run_for(name, seconds, db, test):
    """Runs the @given test `test` in rounds of 50 examples until seconds
    have passed; a falsifying example fails (Hypothesis prints it, shrunk)."""
    need_hypothesis(name)
    wrapped = settings(max_examples=50, deadline=None, database=DirectoryBasedExampleDatabase(db),
                       suppress_health_check=list(HealthCheck), print_blob=True)(test)
    t0 = time.time()
    rounds = 0
    while time.time() - t0 < seconds:
        wrapped()
        rounds += 1
    dt = time.time() - t0
    print(f"{name}: ok: stat::number_of_executed_units: {Counter.n} examples in {dt:.0f} s "
          f"({Counter.n / max(dt, 1e-9):.1f} exec/s, {rounds} rounds of at most 50)")
