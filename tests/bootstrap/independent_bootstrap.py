#!/usr/bin/env python3
"""A second, independent implementation of the bootstrap intervals of a run.

    independent_bootstrap.py [--all] [--cases ID,...] RUN_DIR...
    independent_bootstrap.py --self-test RUN_DIR

Written from docs/TIMING.md ("The bootstrap, stated exactly"), Python standard
library only. For each run directory it reads protocol.json, the samples
files, summary.json and peers.json, recomputes the medians, the medians'
bootstrap 95 % intervals and the paired intervals of time_ratio_to_stream,
and compares their bits with the recorded values. Prints the counts, or the
first differences, and exits 1 on any difference.

Default coverage: every summary's median (all scopes); the median interval of
every device-scope summary (cases, controls, peers); every device-scope ratio
and its interval; every interval of every scope of the first shape's cases.
--all: every interval of every scope. --cases restricts to the named cases.

Speed: one xorshift64* stream per summary makes ~10^8 draws for a full run,
too many for a Python loop. So the streams of all summaries with the same
sample count advance together, as 128-bit lanes of one integer (the state in
the low 64 bits of a lane, the product by the multiplier fits in 128), and
the outputs go through bytes: `v % n` is the sum over v's eight bytes of
table lookups (byte * 256^k mod n), added bytewise through integers with no
carries, and reduced by another table. The per-draw path (`Stream`) is kept
for sample counts over 127 and unpaired ratios, and --self-test checks the
lanes against it.
"""

import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MULT = 0x2545F4914F6CDD1D
FNV_BASIS = 1469598103934665603  # as the code has it (docs/TIMING.md)
FNV_PRIME = 0x100000001B3
SCOPES = ("device", "device_cold", "batch", "host")
LANE_MAX_N = 127  # two residues below n add up to < 256


# --- seeds and the generator -------------------------------------------------

def mix64(z):
    z = (z + GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def fnv1a(text):
    h = FNV_BASIS
    for c in text.encode("utf-8"):
        h = ((h ^ c) * FNV_PRIME) & MASK
    return h


def summary_seed(base, case, scope):
    return mix64(base ^ fnv1a(case + "/" + scope))


def ratio_seed(base, case, scope):
    return mix64(summary_seed(base, case, scope) ^ 1)


def initial_state(seed):
    return mix64(seed) or GOLDEN


class Stream:
    """The per-draw generator: xorshift64*, one output per call."""

    def __init__(self, seed):
        self.x = initial_state(seed)

    def next(self):
        x = self.x
        x ^= x >> 12
        x ^= (x << 25) & MASK
        x ^= x >> 27
        self.x = x
        return (x * MULT) & MASK


# --- type-7 percentiles -------------------------------------------------------

def type7_place(m, q):
    """(lo, f) for percentile q of m sorted values."""
    h = float(m - 1) * q / 100.0
    if not h > 0.0:
        return 0, 0.0
    if h >= float(m - 1):
        return m - 1, 0.0
    lo = math.floor(h)
    return lo, h - lo


def type7_between(a, b, f):
    return a if f == 0.0 else a + f * (b - a)


def percentile(sorted_values, q):
    lo, f = type7_place(len(sorted_values), q)
    hi = lo + 1 if f != 0.0 else lo
    return type7_between(sorted_values[lo], sorted_values[hi], f)


def interval(stats):
    s = sorted(stats)  # positive times: -0.0 cannot occur
    return percentile(s, 2.5), percentile(s, 97.5)


# --- the jobs: one bootstrap each ---------------------------------------------

class Job:
    """A median interval (b is None) or a paired ratio interval of a over b."""

    def __init__(self, label, seed, a, b=None):
        self.label, self.seed, self.a, self.b = label, seed, a, b
        self.result = None

    def fast(self):
        return len(self.a) <= LANE_MAX_N and (self.b is None or len(self.b) == len(self.a))


def order_of(x):
    """Sorted values and, per sample index, its rank in that order."""
    order = sorted(range(len(x)), key=lambda i: (x[i], i))
    rank = [0] * len(x)
    for r, i in enumerate(order):
        rank[i] = r
    return [x[i] for i in order], rank


def run_slow(job, resamples):
    """Draw by draw, exactly as the document says."""
    g = Stream(job.seed)
    a, b = job.a, job.b
    na = len(a)
    stats = []
    for _ in range(resamples):
        if b is None:
            ia = [g.next() % na for _ in range(na)]
            stats.append(percentile(sorted(a[i] for i in ia), 50.0))
            continue
        nb = len(b)
        if na == nb:
            ia = [g.next() % na for _ in range(na)]
            ib = ia
        else:
            ia = [g.next() % na for _ in range(na)]
            ib = [g.next() % nb for _ in range(nb)]
        ma = percentile(sorted(a[i] for i in ia), 50.0)
        mb = percentile(sorted(b[i] for i in ib), 50.0)
        stats.append(ma / mb)
    job.result = interval(stats)


def lane_indices(states, steps, n):
    """Advances every lane `steps` times; returns (indices, states) where
    indices[s * L + j] = (output s of lane j) % n, one byte each."""
    lanes = len(states)
    x = 0
    for j, st in enumerate(states):
        x |= st << (128 * j)
    low = 0
    for j in range(lanes):
        low |= MASK << (128 * j)
    width = 16 * lanes
    chunks = []
    for _ in range(steps):
        x ^= (x >> 12) & low
        x ^= (x << 25) & low
        x ^= (x >> 27) & low
        chunks.append((x * MULT).to_bytes(width, "little"))
    raw = b"".join(chunks)
    # v % n = (sum over bytes k of v: byte_k * (256^k mod n)) % n
    residues = []
    for k in range(8):
        w = pow(256, k, n)
        table = bytes((c * w) % n for c in range(256))
        residues.append(raw[k::16].translate(table))
    reduce = bytes(c % n for c in range(256))
    size = len(residues[0])
    while len(residues) > 1:  # bytewise sums of residues < n <= 127: no carries
        residues = [
            (int.from_bytes(residues[i], "little") + int.from_bytes(residues[i + 1], "little"))
            .to_bytes(size, "little").translate(reduce)
            for i in range(0, len(residues), 2)
        ]
    new_states = [(x >> (128 * j)) & MASK for j in range(lanes)]
    return residues[0], new_states


def run_lanes(jobs, n, resamples, chunk=100):
    """All jobs with n samples (ratios: paired, n each), in lanes."""
    lanes = len(jobs)
    states = [initial_state(j.seed) for j in jobs]
    prepared = []
    for job in jobs:
        sa, ra = order_of(job.a)
        sb, rb = order_of(job.b) if job.b is not None else (None, None)
        prepared.append((sa, bytes(ra) + bytes(256 - n), sb,
                         bytes(rb) + bytes(256 - n) if rb is not None else None, []))
    lo, f = type7_place(n, 50.0)
    hi = lo + 1 if f != 0.0 else lo
    done = 0
    while done < resamples:
        take = min(chunk, resamples - done)
        idx, states = lane_indices(states, take * n, n)
        for j, (sa, ranka, sb, rankb, stats) in enumerate(prepared):
            drawn = idx[j::lanes]
            da = drawn.translate(ranka)
            if sb is None:
                for r in range(0, take * n, n):
                    o = sorted(da[r:r + n])
                    stats.append(type7_between(sa[o[lo]], sa[o[hi]], f))
            else:
                db = drawn.translate(rankb)
                for r in range(0, take * n, n):
                    o = sorted(da[r:r + n])
                    p = sorted(db[r:r + n])
                    stats.append(type7_between(sa[o[lo]], sa[o[hi]], f) /
                                 type7_between(sb[p[lo]], sb[p[hi]], f))
        done += take
    for job, (_, _, _, _, stats) in zip(jobs, prepared):
        job.result = interval(stats)


def run_jobs(jobs, resamples):
    if resamples == 0:
        for job in jobs:
            med = percentile(sorted(job.a), 50.0)
            if job.b is not None:
                med = med / percentile(sorted(job.b), 50.0)
            job.result = (med, med)
        return
    groups = {}
    for job in jobs:
        if job.fast():
            groups.setdefault(len(job.a), []).append(job)
        else:
            run_slow(job, resamples)
    for n, group in sorted(groups.items()):
        run_lanes(group, n, resamples)


# --- a run directory ------------------------------------------------------------

class Problem(Exception):
    pass


def read_samples(path, want_scopes):
    """{scope: [ns in round order]} from a samples CSV."""
    rows = {}
    with open(path, newline="") as fh:
        header = fh.readline().rstrip("\n")
        if header != "seq,round,position,scope,l2,ns,sm_mhz,throttled":
            raise Problem(f"{path}: unexpected header {header!r}")
        for line_no, line in enumerate(fh, 2):
            f = line.rstrip("\n").split(",")
            if len(f) != 8:
                raise Problem(f"{path}:{line_no}: expected 8 fields")
            rows.setdefault(f[3], []).append((int(f[1]), float(f[5])))
    out = {}
    for scope in want_scopes:
        got = sorted(rows.get(scope, []))
        if [r for r, _ in got] != list(range(len(got))):
            raise Problem(f"{path}: scope {scope}: rounds are not 0..{len(got) - 1}")
        out[scope] = [v for _, v in got]
    return out


def bits(v):
    return struct.pack("<d", v)


def show(v):
    return f"{v!r} ({float(v).hex()})"


class Check:
    def __init__(self, run):
        self.run = run
        self.compared = {"median": 0, "interval": 0, "ratio": 0}
        self.differences = []

    def same(self, kind, where, saved, recomputed):
        self.compared[kind] += 1
        if not isinstance(saved, (int, float)) or bits(float(saved)) != bits(recomputed):
            self.differences.append(f"{where}: saved {show(saved)}, recomputed {show(recomputed)}")


def check_run(run, everything=False, only=None):
    with open(os.path.join(run, "protocol.json")) as fh:
        protocol = json.load(fh)
    with open(os.path.join(run, "summary.json")) as fh:
        summary = json.load(fh)
    peers = None
    if os.path.exists(os.path.join(run, "peers.json")):
        with open(os.path.join(run, "peers.json")) as fh:
            peers = json.load(fh)
    base = protocol["analysis"]["bootstrap_seed"]
    resamples = protocol["analysis"]["bootstrap_resamples"]
    if summary["bootstrap"]["resamples"] != resamples or summary["bootstrap"]["seed"] != base:
        raise Problem("summary.json's bootstrap block differs from protocol.json's analysis")
    strategies = set(protocol["strategies"])
    chk = Check(run)

    # Every summary: (where, case id, samples file, {scope: recorded}, counts)
    entries = []
    for i, c in enumerate(summary["cases"]):
        entries.append((f"summary.json cases[{i}]", c, c["scopes"], protocol["scopes"]))
    for i, c in enumerate(summary["controls"]):
        entries.append((f"summary.json controls[{i}]", c, c["scopes"],
                        {"device": protocol["controls"]}))
    if peers is not None and peers.get("status") == "ok":
        for i, p in enumerate(peers["peers"]):
            if p.get("status") in ("error", "skipped"):
                continue
            entries.append((f"peers.json peers[{i}]", p, {"device": p["summary"]},
                            protocol["scopes"]))
    covered = {e[1]["samples_file"] for e in entries}
    on_disk = {"samples/" + f for f in os.listdir(os.path.join(run, "samples"))}
    if covered != on_disk:
        raise Problem(f"samples files without a summary: {sorted(on_disk - covered)}; "
                      f"summaries without a samples file: {sorted(covered - on_disk)}")
    if only:
        entries = [e for e in entries if e[1]["case"] in only]

    first_shape = summary["cases"][0]["shape"] if summary["cases"] else None
    stream = {}  # shape -> {scope: samples}
    samples = {}
    for where, c, scopes, counts in entries:
        data = read_samples(os.path.join(run, c["samples_file"]), list(scopes))
        samples[c["case"]] = data
        for scope, x in data.items():
            if len(x) != counts[scope]["samples"]:
                raise Problem(f"{c['samples_file']}: scope {scope}: {len(x)} samples, "
                              f"the protocol asks for {counts[scope]['samples']}")
        if c.get("what") == "stream" and "peer" not in c:
            stream[c["shape"]] = data
    if only:  # a ratio needs its stream even when only the strategy is asked for
        for c in summary["cases"]:
            if c["what"] == "stream" and c["shape"] not in stream:
                stream[c["shape"]] = read_samples(os.path.join(run, c["samples_file"]),
                                                  list(c["scopes"]))

    jobs = []
    for where, c, scopes, counts in entries:
        case = c["case"]
        for scope, rec in scopes.items():
            here = f"{where}.scopes.{scope}" if "peer" not in c else f"{where}.summary"
            here += f" ({case})"
            x = samples[case][scope]
            med = percentile(sorted(x), 50.0)
            chk.same("median", here + " median_ns", rec["median_ns"], med)
            full = everything or scope == "device" or c.get("shape") == first_shape and "peer" not in c
            if full:
                jobs.append((Job(here + " median_ci95_ns", summary_seed(base, case, scope), x),
                             "interval", rec["median_ci95_ns"]))
            is_ratio = (c.get("what") in strategies and c.get("what") != "stream"
                        and "peer" not in c and c.get("shape") in stream)
            if is_ratio != ("time_ratio_to_stream" in rec):
                raise Problem(f"{here}: time_ratio_to_stream is "
                              f"{'missing' if is_ratio else 'unexpected'}")
            if not is_ratio:
                continue
            b = stream[c["shape"]][scope]
            ratio = med / percentile(sorted(b), 50.0)
            chk.same("median", here + " time_ratio_to_stream.ratio",
                     rec["time_ratio_to_stream"]["ratio"], ratio)
            if full:
                jobs.append((Job(here + " time_ratio_to_stream.ci95",
                                 ratio_seed(base, case, scope), x, b),
                             "ratio", rec["time_ratio_to_stream"]["ci95"]))
    run_jobs([j for j, _, _ in jobs], resamples)
    for job, kind, saved in jobs:
        if not isinstance(saved, list) or len(saved) != 2:
            chk.differences.append(f"{job.label}: saved {saved!r} is not a pair")
            continue
        chk.same(kind, job.label + "[0]", saved[0], job.result[0])
        chk.same(kind, job.label + "[1]", saved[1], job.result[1])
    return chk


# --- self test -------------------------------------------------------------------

def self_test(run):
    """The lanes agree with the per-draw path, and a flipped bit is caught."""
    script = os.path.abspath(__file__)
    with open(os.path.join(run, "summary.json")) as fh:
        summary = json.load(fh)
    with open(os.path.join(run, "protocol.json")) as fh:
        protocol = json.load(fh)
    base = protocol["analysis"]["bootstrap_seed"]
    resamples = protocol["analysis"]["bootstrap_resamples"]
    cases = summary["cases"]
    strategy = next(c for c in cases if "time_ratio_to_stream" in c["scopes"]["device"])
    stream = next(c for c in cases if c["what"] == "stream" and c["shape"] == strategy["shape"])
    data = read_samples(os.path.join(run, strategy["samples_file"]), list(strategy["scopes"]))
    sdata = read_samples(os.path.join(run, stream["samples_file"]), list(stream["scopes"]))
    failures = 0

    # 1. lanes == per-draw path, on a median of each scope and a ratio
    pairs = []
    for scope in strategy["scopes"]:
        pairs.append(Job(scope, summary_seed(base, strategy["case"], scope), data[scope]))
    pairs.append(Job("ratio", ratio_seed(base, strategy["case"], "device"),
                     data["device"], sdata["device"]))
    slow = [Job(j.label, j.seed, j.a, j.b) for j in pairs]
    run_jobs(pairs, resamples)
    for j in slow:
        run_slow(j, resamples)
    for f, s in zip(pairs, slow):
        ok = bits(f.result[0]) == bits(s.result[0]) and bits(f.result[1]) == bits(s.result[1])
        print(f"self-test: lanes and per-draw path agree on {strategy['case']} {f.label}: "
              f"{'yes' if ok else 'NO'}")
        failures += not ok

    # 2. unpaired ratios (n_a != n_b) take the per-draw path: a, then b
    j = Job("unpaired", 7, data["device"][:9], sdata["device"][:11])
    run_jobs([j], 3)
    g = Stream(7)
    ts = []
    for _ in range(3):
        ia = [g.next() % 9 for _ in range(9)]
        ib = [g.next() % 11 for _ in range(11)]
        ts.append(percentile(sorted(data["device"][i] for i in ia), 50.0) /
                  percentile(sorted(sdata["device"][i] for i in ib), 50.0))
    ok = j.result == interval(ts)
    print(f"self-test: unpaired ratio draws a's then b's: {'yes' if ok else 'NO'}")
    failures += not ok

    # 3. a copy of the run with one bit of one bound flipped fails, naming it
    def doctored(edit, expect):
        nonlocal failures
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("protocol.json", "peers.json"):
                if os.path.exists(os.path.join(run, name)):
                    shutil.copy(os.path.join(run, name), tmp)
            os.symlink(os.path.abspath(os.path.join(run, "samples")), os.path.join(tmp, "samples"))
            s = json.loads(json.dumps(summary))
            edit(s)
            for label, content in (("intact", summary), ("doctored", s)):
                with open(os.path.join(tmp, "summary.json"), "w") as fh:
                    json.dump(content, fh)  # repr of a float reads back exactly
                r = subprocess.run([sys.executable, script, "--cases", strategy["case"], tmp],
                                   capture_output=True, text=True)
                want = 0 if label == "intact" else 1
                ok = r.returncode == want and (label == "intact" or expect in r.stdout)
                print(f"self-test: {label} copy, {expect}: exit {r.returncode}, "
                      f"{'as expected' if ok else 'NOT as expected'}")
                if not ok:
                    print(r.stdout + r.stderr)
                failures += not ok

    def flip(v):
        return struct.unpack("<d", struct.pack("<Q", struct.unpack("<Q", struct.pack("<d", v))[0] ^ 1))[0]

    i = cases.index(strategy)

    def flip_median_bound(s):
        d = s["cases"][i]["scopes"]["device"]
        d["median_ci95_ns"][1] = flip(d["median_ci95_ns"][1])

    def flip_ratio_bound(s):
        d = s["cases"][i]["scopes"]["device"]
        d["time_ratio_to_stream"]["ci95"][0] = flip(d["time_ratio_to_stream"]["ci95"][0])

    doctored(flip_median_bound, f"cases[{i}].scopes.device ({strategy['case']}) median_ci95_ns[1]")
    doctored(flip_ratio_bound,
             f"cases[{i}].scopes.device ({strategy['case']}) time_ratio_to_stream.ci95[0]")
    print("self-test:", "passed" if failures == 0 else f"{failures} failure(s)")
    return 1 if failures else 0


def main(argv):
    everything = "--all" in argv
    args = [a for a in argv if a != "--all"]
    only = None
    if "--cases" in args:
        k = args.index("--cases")
        if k + 1 >= len(args):
            print("--cases needs a comma-separated list of case ids", file=sys.stderr)
            return 2
        only = set(args[k + 1].split(","))
        del args[k:k + 2]
    if args and args[0] == "--self-test":
        if len(args) != 2:
            print("usage: independent_bootstrap.py --self-test RUN_DIR", file=sys.stderr)
            return 2
        return self_test(args[1])
    if not args or any(a.startswith("-") for a in args):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    status = 0
    for run in args:
        try:
            chk = check_run(run, everything, only)
        except (Problem, OSError, KeyError, ValueError) as e:
            print(f"{run}: cannot check: {e}")
            status = 1
            continue
        c = chk.compared
        head = (f"{run}: {c['median']} medians and ratios, {c['interval'] // 2} median intervals, "
                f"{c['ratio'] // 2} ratio intervals")
        if chk.differences:
            print(f"{head}: {len(chk.differences)} difference(s); the first:")
            for d in chk.differences[:10]:
                print("  " + d)
            status = 1
        else:
            print(f"{head}: all bit-identical")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
