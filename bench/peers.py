#!/usr/bin/env python3
"""peers.py - the PyTorch peers of a softmax-evidence run (docs/PEERS.md).

    python3 bench/peers.py IN_DIR OUT_DIR [--device N] [--quiet]

IN_DIR holds peers-inputs.json, written by `softmax-evidence run`, and the
input arrays it names: per shape x (raw little-endian float32, rows * cols)
and, for the softmax, xp, the pre-scaled input s * x that the harness gives
cuDNN (LayerNorm's shapes have no xp: its peers take x). Every array's
SHA-256 is checked before torch is imported; a mismatch is refused.

The input document's optional field 'operation' names the workload
(absent: rms-softmax). For the RMS-scaled softmax, per shape six peers are
timed on the GPU, in the harness's device scope:
  torch-eager    softmax(x * rsqrt(mean(x^2, -1) + eps), -1) in plain torch ops
  torch-compile  torch.compile of that same function (per shape, static shapes)
  torch-softmax  torch.softmax(xp, -1), the plain softmax of the pre-scaled input
  liger-softmax  Liger-Kernel's Triton softmax of xp (package liger-kernel)
  quack-softmax  Quack's CuTe DSL softmax of xp (package quack-kernels)
  flashinfer-softmax  FlashInfer's softmax of xp (package flashinfer-python)
The last three compute the plain softmax alone, like torch-softmax and
cuDNN: less work than the RMS-scaled softmax. Where a package cannot be
imported (or does not run on this GPU) its peer is recorded as skipped,
with the reason, and the others still run.
For LayerNorm ('operation': 'layernorm'), on x, with gamma and beta the
harness's functions of the column (src/model/layernorm_params.h) and eps the
shape's:
  torch-layernorm-eager    torch.nn.functional.layer_norm(x, (cols,), gamma, beta, eps)
  torch-layernorm-compile  torch.compile of that same function
  liger-layernorm          Liger-Kernel's Triton LayerNorm (package liger-kernel)
Each peer is called once and its output kept for the harness to validate,
then warmed up, then timed: per sample torch.cuda._sleep holds the stream
while the host enqueues the start event, the call and the end event, so the
events measure the GPU executing the call, not the host submitting it.
The peers of a shape take their samples interleaved, round by round.

OUT_DIR (which must not exist) receives peers-results.json and each peer's
output as raw float32; it appears only when everything is written.

Exit status: 0 done (a peer that failed, e.g. out of memory, is recorded as
an error in the results); 2 bad arguments; 3 torch cannot be imported or
CUDA is not available to it (nothing is written); 4 the inputs are refused
(unreadable, malformed, or a SHA-256 mismatch); 1 anything unexpected.
Standard library and torch only (no numpy).
"""

import argparse
import ctypes
import hashlib
import json
import os
import re
import shutil
import sys
import time

EXIT_USAGE = 2
EXIT_NO_TORCH = 3
EXIT_INPUTS = 4

INPUTS_FORMAT = "softmax-evidence-peers-inputs"
RESULTS_FORMAT = "softmax-evidence-peers-results"
PEERS = ("torch-eager", "torch-compile", "torch-softmax", "liger-softmax", "quack-softmax",
         "flashinfer-softmax")
# The peers of each workload (src/model/operation.c's `peers`): the input
# document's optional field 'operation' (absent: the RMS-scaled softmax,
# every input written before the field) selects them.
OPERATION_PEERS = {
    "rms-softmax": PEERS,
    "layernorm": ("torch-layernorm-eager", "torch-layernorm-compile", "liger-layernorm"),
}
# The workloads whose shapes carry xp, the pre-scaled input (the harness's
# se_operation.prescaled_input).
OPERATION_XP = {"rms-softmax"}
PLAIN_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
SHAPE_ID = re.compile(r"^([0-9]+)x([0-9]+)$")

quiet = False


def progress(msg):
    # Progress goes to stdout (the harness shows it on its stderr); stderr
    # is kept for the reason of a failure.
    if not quiet:
        print("[peers] " + msg, flush=True)


class Refused(Exception):
    """The inputs cannot be used; the message names the file and field."""


def die(status, msg):
    print("peers.py: " + msg, file=sys.stderr, flush=True)
    sys.exit(status)


# ---- inputs, checked before torch is imported ------------------------------

def field(obj, key, kind, where):
    if not isinstance(obj, dict) or key not in obj:
        raise Refused("peers-inputs.json: field '%s%s': missing" % (where, key))
    v = obj[key]
    if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise Refused("peers-inputs.json: field '%s%s': expected an integer" % (where, key))
    if kind is float and (isinstance(v, bool) or not isinstance(v, (int, float))):
        raise Refused("peers-inputs.json: field '%s%s': expected a number" % (where, key))
    if kind is str and not isinstance(v, str):
        raise Refused("peers-inputs.json: field '%s%s': expected a string" % (where, key))
    if kind is list and not isinstance(v, list):
        raise Refused("peers-inputs.json: field '%s%s': expected an array" % (where, key))
    return v


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def check_array(in_dir, shape, key, where):
    name = field(shape, key, str, where)
    want = field(shape, key + "_sha256", str, where)
    if not PLAIN_NAME.match(name):
        raise Refused("peers-inputs.json: field '%s%s': '%s' is not a plain file name" % (where, key, name))
    path = os.path.join(in_dir, name)
    try:
        size = os.path.getsize(path)
        got = sha256_file(path)
    except OSError as e:
        raise Refused("%s: cannot be read: %s" % (path, e.strerror or e))
    expect = shape["rows"] * shape["cols"] * 4
    if size != expect:
        raise Refused("%s: %d bytes, expected %d (%s float32)" % (path, size, expect, shape["id"]))
    if got != want:
        raise Refused("%s: SHA-256 mismatch: peers-inputs.json field '%s%s_sha256' says %s, the file "
                      "has %s" % (path, where, key, want, got))
    return path


def load_inputs(in_dir):
    path = os.path.join(in_dir, "peers-inputs.json")
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
    except OSError as e:
        raise Refused("%s: cannot be read: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise Refused("%s: not valid JSON: %s" % (path, e))
    if not isinstance(doc, dict) or doc.get("format") != INPUTS_FORMAT or doc.get("version") != 1:
        raise Refused("%s: field 'format'/'version': expected %s version 1" % (path, INPUTS_FORMAT))
    for key, low in (("samples", 1), ("warmup", 0), ("first_seq", 0)):
        if field(doc, key, int, "") < low:
            raise Refused("peers-inputs.json: field '%s': must be at least %d" % (key, low))
    op = doc.get("operation", "rms-softmax")
    if op not in OPERATION_PEERS:
        raise Refused("peers-inputs.json: field 'operation': unknown workload %r; known: %s"
                      % (op, ", ".join(OPERATION_PEERS)))
    doc["operation"] = op
    known = OPERATION_PEERS[op]
    peers = field(doc, "peers", list, "")
    for i, p in enumerate(peers):
        if p not in known:
            raise Refused("peers-inputs.json: field 'peers[%d]': unknown peer %r of %s; known: %s"
                          % (i, p, op, ", ".join(known)))
    shapes = field(doc, "shapes", list, "")
    seen = set()
    for i, s in enumerate(shapes):
        where = "shapes[%d]." % i
        sid = field(s, "id", str, where)
        rows, cols = field(s, "rows", int, where), field(s, "cols", int, where)
        field(s, "eps", float, where)
        m = SHAPE_ID.match(sid)
        if not m or int(m.group(1)) != rows or int(m.group(2)) != cols or rows < 1 or cols < 1:
            raise Refused("peers-inputs.json: field '%sid': '%s' does not match rows %d, cols %d"
                          % (where, sid, rows, cols))
        if sid in seen:
            raise Refused("peers-inputs.json: field '%sid': shape %s listed twice" % (where, sid))
        seen.add(sid)
        s["x_path"] = check_array(in_dir, s, "x", where)
        if op in OPERATION_XP:
            s["xp_path"] = check_array(in_dir, s, "xp", where)
        elif "xp" in s or "xp_sha256" in s:
            raise Refused("peers-inputs.json: field '%sxp': %s has no pre-scaled input"
                          % (where, op))
        else:
            s["xp_path"] = None
    return doc


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="peers.py",
        description="Times PyTorch eager, torch.compile and torch.softmax on the inputs of a "
                    "softmax-evidence run (docs/PEERS.md).")
    ap.add_argument("in_dir", metavar="IN_DIR", help="folder with peers-inputs.json and the arrays")
    ap.add_argument("out_dir", metavar="OUT_DIR", help="folder to create for the results (must not exist)")
    ap.add_argument("--device", type=int, default=0, help="CUDA device ordinal (default 0)")
    ap.add_argument("--quiet", action="store_true", help="no progress")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.in_dir):
        ap.error("IN_DIR: %s is not a folder" % a.in_dir)
    if os.path.lexists(a.out_dir):
        ap.error("OUT_DIR: %s already exists; give a new folder" % a.out_dir)
    parent = os.path.dirname(os.path.abspath(a.out_dir))
    if not os.path.isdir(parent):
        ap.error("OUT_DIR: the parent folder %s does not exist" % parent)
    if a.device < 0:
        ap.error("--device: must be 0 or more, got %d" % a.device)
    return a


# ---- torch -----------------------------------------------------------------

def import_torch(device):
    """Returns the torch module, or exits with EXIT_NO_TORCH saying why."""
    try:
        import torch
    except Exception as e:  # ImportError, or a broken installation
        die(EXIT_NO_TORCH, "torch cannot be imported (%s: %s); the peers are skipped"
            % (type(e).__name__, e))
    try:
        available = torch.cuda.is_available()
        count = torch.cuda.device_count() if available else 0
    except Exception as e:
        die(EXIT_NO_TORCH, "torch %s cannot use CUDA (%s: %s); the peers are skipped"
            % (torch.__version__, type(e).__name__, e))
    if not available:
        die(EXIT_NO_TORCH, "CUDA is not available to torch %s (torch.cuda.is_available() is "
            "False; torch built for CUDA %s); the peers are skipped"
            % (torch.__version__, torch.version.cuda))
    if device >= count:
        die(EXIT_NO_TORCH, "torch %s sees %d CUDA device(s), device %d was asked for; the peers "
            "are skipped" % (torch.__version__, count, device))
    torch.cuda.set_device(device)
    return torch


def read_array(torch, path, want_sha, rows, cols):
    n = rows * cols * 4
    buf = bytearray(n)
    with open(path, "rb") as f:
        if f.readinto(buf) != n:
            raise Refused("%s: shorter than %d bytes" % (path, n))
    if hashlib.sha256(buf).hexdigest() != want_sha:
        raise Refused("%s: SHA-256 changed since it was checked" % path)
    return torch.frombuffer(buf, dtype=torch.float32).reshape(rows, cols).to("cuda")


def write_array(t, path):
    """Raw float32 bytes of a tensor, through ctypes (no numpy)."""
    host = t.detach().to("cpu").contiguous()
    n = host.numel() * host.element_size()
    raw = (ctypes.c_char * n).from_address(host.data_ptr())
    with open(path, "wb") as f:
        f.write(memoryview(raw))
    del raw, host


def rms_softmax(torch, eps):
    """y = softmax(s * x) per row, s = 1 / sqrt(mean(x^2) + eps): the project's
    definition (src/reference.c) as a user writes it in torch."""
    def f(x):
        s = torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps)
        return torch.softmax(x * s, dim=-1)
    return f


def layernorm_params(torch, cols, device):
    """LayerNorm's gamma and beta, functions of the column alone
    (src/model/layernorm_params.h), bit for bit the harness's: h a 32-bit
    mix of c, gamma = 0.5 + (h & 0xffff) / 65536, beta = ((h >> 16) - 32768)
    / 65536, exact in float32. int64 arithmetic masked to 32 bits (a
    product's low 32 bits survive int64 wrap-around)."""
    m = 0xFFFFFFFF
    c = torch.arange(cols, dtype=torch.int64, device=device)
    h = (c & m) ^ (((c >> 32) * 0x9E3779B9) & m)
    h = h ^ (h >> 16)
    h = (h * 0x85EBCA6B) & m
    h = h ^ (h >> 13)
    h = (h * 0xC2B2AE35) & m
    h = h ^ (h >> 16)
    gamma = 0.5 + (h & 0xFFFF).to(torch.float32) * (1.0 / 65536.0)
    beta = ((h >> 16).to(torch.float32) - 32768.0) * (1.0 / 65536.0)
    return gamma, beta


def torch_layernorm(torch, gamma, beta, eps):
    """y = layer_norm(x) * gamma + beta per row, as a user writes it."""
    def f(x):
        return torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps)
    return f


def liger_layernorm(torch, gamma, beta, eps):
    mod = import_peer("liger_kernel.ops.layer_norm", "liger-kernel")
    fn = mod.LigerLayerNormFunction.apply

    def f(x):
        with torch.no_grad():
            return fn(x, gamma, beta, eps)
    return f


def plain_softmax(torch):
    def f(xp):
        return torch.softmax(xp, dim=-1)
    return f


class Skip(Exception):
    """The peer cannot run here (its package is missing); the message says why."""


def import_peer(module, package):
    """Imports a peer's module, or raises Skip naming the package and the error."""
    import importlib
    try:
        return importlib.import_module(module)
    except Exception as e:  # ImportError, or a package broken on this machine
        raise Skip("%s cannot be imported (%s; pip package %s)" % (module, error_text(e), package))


def liger_softmax(torch):
    mod = import_peer("liger_kernel.ops.softmax", "liger-kernel")
    fn = mod.LigerSoftmaxFunction.apply

    def f(xp):
        with torch.no_grad():
            return fn(xp)
    return f


def quack_softmax(torch):
    mod = import_peer("quack.softmax", "quack-kernels")
    return mod.softmax_fwd


def flashinfer_softmax(torch):
    mod = import_peer("flashinfer.sampling", "flashinfer-python")
    return lambda xp: mod.softmax(xp)


def peer_versions():
    """The version of each optional peer package that is installed, else None."""
    from importlib import metadata
    out = {}
    for package in ("liger-kernel", "quack-kernels", "nvidia-cutlass-dsl", "flashinfer-python"):
        try:
            out[package] = metadata.version(package)
        except Exception:
            out[package] = None
    return out


def versions(torch):
    try:
        import triton
        triton_version = triton.__version__
    except Exception:
        triton_version = None
    cap = torch.cuda.get_device_capability()
    return {
        "torch_version": str(torch.__version__),
        "torch_cuda_version": torch.version.cuda,
        "triton_version": triton_version,
        "python_version": sys.version.split()[0],
        "device_name": torch.cuda.get_device_name(),
        "device_capability": "%d.%d" % (cap[0], cap[1]),
        "peer_packages": peer_versions(),
    }


def calibrate_sleep(torch):
    """Nanoseconds per torch.cuda._sleep cycle, measured with events."""
    cycles = 1000000
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(5):
        start.record()
        torch.cuda._sleep(cycles)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e6)
    times.sort()
    ns = times[len(times) // 2]
    return {"cycles": cycles, "median_ns": ns, "ns_per_cycle": ns / cycles if ns > 0 else 0.0}


# Terminal colour and cursor sequences (ESC [ ... letter), which the CUTLASS
# DSL puts in its error messages: kept out of peers.json and the report.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def error_text(e):
    text = "%s: %s" % (type(e).__name__, e)
    text = " ".join(ANSI_ESCAPE.sub("", text).split())
    return text[:900]


class Peer:
    def __init__(self, name, fn, operand):
        self.name = name
        self.fn = fn
        self.operand = operand
        self.status = "ok"
        self.error = None
        self.output = None
        self.warmup = 0
        self.host_max_ns = 0.0
        self.sleep_ns = 0.0
        self.sleep_cycles = 0
        self.exposed = 0
        self.samples = []

    def skip(self, reason):
        self.status = "skipped"
        self.error = reason
        self.samples = []
        self.fn = None

    def fail(self, torch, e):
        self.status = "error"
        self.error = error_text(e)
        self.samples = []
        self.fn = None
        try:
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        except Exception:
            pass

    def result(self):
        r = {"peer": self.name, "status": self.status, "error": self.error}
        if self.status == "ok":
            r.update({"output": self.output, "warmup": self.warmup,
                      "host_enqueue_max_ns": self.host_max_ns, "sleep_ns": self.sleep_ns,
                      "sleep_cycles": self.sleep_cycles, "exposed_samples": self.exposed,
                      "samples": self.samples})
        return r


def first_call(torch, peer, out_tmp, sid):
    """The validated output: the first call (for torch.compile, the one that compiles)."""
    y = peer.fn(peer.operand)
    torch.cuda.synchronize()
    peer.output = "%s.%s.y.f32" % (sid, peer.name)
    write_array(y, os.path.join(out_tmp, peer.output))


def warm_up(torch, peer, warmup, ns_per_cycle):
    """Warm-up calls, timing the host's enqueue of each; then the sleep that
    hides that enqueue behind the GPU (4x the slowest, + 20 us, 50 us..50 ms)."""
    calls = max(warmup, 2)
    for _ in range(calls):
        t0 = time.perf_counter_ns()
        y = peer.fn(peer.operand)
        t1 = time.perf_counter_ns()
        peer.host_max_ns = max(peer.host_max_ns, float(t1 - t0))
        del y
        torch.cuda.synchronize()
    peer.warmup = calls
    peer.sleep_ns = min(max(4.0 * peer.host_max_ns + 20000.0, 50000.0), 50e6)
    peer.sleep_cycles = int(peer.sleep_ns / ns_per_cycle) + 1 if ns_per_cycle > 0 else 1000000


def time_rounds(torch, peers, samples, seq):
    """Round r: every live peer takes one sample, in the order rotated by r."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for r in range(samples):
        live = [p for p in peers if p.status == "ok"]
        if not live:
            break
        k = r % len(live)
        order = live[k:] + live[:k]
        for pos, p in enumerate(order):
            try:
                torch.cuda._sleep(p.sleep_cycles)
                start.record()
                y = p.fn(p.operand)
                end.record()
                # The sleep still running here means the enqueue was hidden.
                p.exposed += 1 if start.query() else 0
                end.synchronize()
                ns = start.elapsed_time(end) * 1e6
                del y
            except Exception as e:
                p.fail(torch, e)
                continue
            p.samples.append([seq, r, pos, ns])
            seq += 1
    return seq


def run_shape(torch, s, doc, out_tmp, ns_per_cycle, seq):
    sid, rows, cols, eps = s["id"], s["rows"], s["cols"], float(s["eps"])
    wanted = doc["peers"]
    try:
        x = read_array(torch, s["x_path"], s["x_sha256"], rows, cols)
        xp = read_array(torch, s["xp_path"], s["xp_sha256"], rows, cols) if s["xp_path"] else None
    except Refused:
        raise
    except Exception as e:
        # e.g. out of memory for the inputs: every peer of the shape failed.
        results = []
        for name in wanted:
            p = Peer(name, None, None)
            p.fail(torch, e)
            results.append(p.result())
        return results, seq
    try:
        torch._dynamo.reset()  # compile this shape afresh: no recompile limit across shapes
    except Exception as e:
        progress("torch._dynamo.reset() failed (%s); compiling on top of earlier shapes" % error_text(e))
    if doc["operation"] == "layernorm":
        gamma, beta = layernorm_params(torch, cols, x.device)
    makers = {
        "torch-layernorm-eager": lambda: (torch_layernorm(torch, gamma, beta, eps), x),
        "torch-layernorm-compile": lambda: (torch.compile(torch_layernorm(torch, gamma, beta, eps),
                                                          dynamic=False, fullgraph=True), x),
        "liger-layernorm": lambda: (liger_layernorm(torch, gamma, beta, eps), x),
        "torch-eager": lambda: (rms_softmax(torch, eps), x),
        "torch-compile": lambda: (torch.compile(rms_softmax(torch, eps), dynamic=False,
                                                fullgraph=True), x),
        "torch-softmax": lambda: (plain_softmax(torch), xp),
        "liger-softmax": lambda: (liger_softmax(torch), xp),
        "quack-softmax": lambda: (quack_softmax(torch), xp),
        "flashinfer-softmax": lambda: (flashinfer_softmax(torch), xp),
    }
    peers = []
    for name in wanted:
        p = Peer(name, None, None)
        peers.append(p)
        progress("%s %s: first call%s" % (sid, name, " (compiling)" if name.endswith("-compile") else ""))
        try:
            p.fn, p.operand = makers[name]()
            first_call(torch, p, out_tmp, sid)
            warm_up(torch, p, doc["warmup"], ns_per_cycle)
        except Skip as e:
            p.skip(str(e))
            progress("%s %s: skipped: %s" % (sid, name, p.error))
        except Exception as e:
            p.fail(torch, e)
            progress("%s %s: %s" % (sid, name, p.error))
    progress("%s: %d samples of each peer, interleaved" % (sid, doc["samples"]))
    seq = time_rounds(torch, peers, doc["samples"], seq)
    for p in peers:
        if p.status == "ok" and len(p.samples) != doc["samples"]:
            p.status, p.error, p.samples = "error", "only %d samples were taken" % len(p.samples), []
    results = [p.result() for p in peers]
    del x, xp, peers
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return results, seq


def main(argv):
    global quiet
    if sys.byteorder != "little":
        die(EXIT_INPUTS, "this machine is big-endian; the arrays are little-endian float32")
    a = parse_args(argv)
    quiet = a.quiet
    try:
        doc = load_inputs(a.in_dir)
    except Refused as e:
        die(EXIT_INPUTS, str(e))
    torch = import_torch(a.device)
    out_tmp = "%s.partial-%d" % (os.path.abspath(a.out_dir), os.getpid())
    os.mkdir(out_tmp)
    try:
        info = versions(torch)
        progress("torch %s on %s" % (info["torch_version"], info["device_name"]))
        cal = calibrate_sleep(torch)
        seq = doc["first_seq"]
        shapes = []
        for s in doc["shapes"]:
            peers, seq = run_shape(torch, s, doc, out_tmp, cal["ns_per_cycle"], seq)
            shapes.append({"id": s["id"], "peers": peers})
        results = {"format": RESULTS_FORMAT, "version": 1}
        results.update(info)
        results.update({
            "sleep_calibration": cal,
            "timing": "per sample: torch.cuda._sleep(sleep_cycles), start event, one call, end "
                      "event, synchronize; ns = elapsed_time * 1e6; peers of a shape interleaved, "
                      "round r in the order rotated by r",
            "shapes": shapes,
        })
        with open(os.path.join(out_tmp, "peers-results.json"), "w") as f:
            json.dump(results, f)
            f.write("\n")
        os.rename(out_tmp, a.out_dir)
    except Refused as e:
        shutil.rmtree(out_tmp, ignore_errors=True)
        die(EXIT_INPUTS, str(e))
    except BaseException:
        shutil.rmtree(out_tmp, ignore_errors=True)
        raise
    progress("results in %s" % a.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
