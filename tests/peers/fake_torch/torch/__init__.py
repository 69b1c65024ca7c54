"""A pure-Python stand-in for the few torch calls bench/peers.py makes, so
that its whole flow (inputs, peers, timing loop, results, outputs) runs in
the CPU tests. Numbers are computed in float64 on lists; "CUDA" events read
the host clock. Knobs, by environment variable:
  FAKE_TORCH_NO_CUDA=1        torch.cuda.is_available() is False
  FAKE_TORCH_COMPILE_FAILS=1  a torch.compile'd function raises on its first call
  FAKE_TORCH_WRONG_SOFTMAX=1  torch.softmax of an input read from a file is off by 1%
  FAKE_TORCH_OOM_COLS=N       moving a tensor of N columns to "cuda" raises OutOfMemoryError
Beside it, liger_kernel and quack stand in for those peers' packages (their
softmax is this torch's); flashinfer is absent, so its peer is skipped.
LayerNorm's peers run on torch.nn.functional.layer_norm, with the integer
arange, masks and shifts of bench/peers.py's layernorm_params.
"""
import ctypes
import math
import os
import struct
import time
import types

__version__ = "0.0+fake"
float32 = "float32"
int64 = "int64"
version = types.SimpleNamespace(cuda="0.0-fake")


class OutOfMemoryError(RuntimeError):
    pass


class Tensor:
    def __init__(self, data, shape, leaf=False):
        self.data = data
        self.shape = tuple(shape)
        self.leaf = leaf
        self._keep = None
        self.device = "cuda"

    def reshape(self, *shape):
        return Tensor(self.data, shape, self.leaf)

    def to(self, device):
        oom = os.environ.get("FAKE_TORCH_OOM_COLS")
        if device == "cuda" and oom and self.shape[-1] == int(oom):
            raise OutOfMemoryError("CUDA out of memory (fake)")
        if device == float32:
            return Tensor([float(a) for a in self.data], self.shape, self.leaf)
        return Tensor(list(self.data), self.shape, self.leaf)

    def detach(self):
        return self

    def contiguous(self):
        return self

    def numel(self):
        return len(self.data)

    def element_size(self):
        return 4

    def data_ptr(self):
        self._keep = (ctypes.c_float * len(self.data))(*self.data)
        return ctypes.addressof(self._keep)

    def _binary(self, other, op):
        if not isinstance(other, Tensor):
            return Tensor([op(a, other) for a in self.data], self.shape)
        if other.shape == self.shape:
            return Tensor([op(a, b) for a, b in zip(self.data, other.data)], self.shape)
        rows, cols = self.shape
        assert other.shape == (rows, 1), other.shape
        return Tensor([op(self.data[i], other.data[i // cols]) for i in range(rows * cols)],
                      self.shape)

    def __mul__(self, other):
        return self._binary(other, lambda a, b: a * b)

    def __add__(self, other):
        return self._binary(other, lambda a, b: a + b)

    def __sub__(self, other):
        return self._binary(other, lambda a, b: a - b)

    # int64 arithmetic: Python's integers do not wrap, which the masks of
    # layernorm_params make irrelevant (their products are masked at once)
    def __and__(self, other):
        return self._binary(other, lambda a, b: a & b)

    def __xor__(self, other):
        return self._binary(other, lambda a, b: a ^ b)

    def __rshift__(self, other):
        return self._binary(other, lambda a, b: a >> b)

    __rmul__ = __mul__
    __radd__ = __add__


def arange(n, dtype=None, device=None):
    return Tensor(list(range(n)), (n,))


def _layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    out = []
    for r in _rows(x):
        m = sum(r) / len(r)
        v = sum((a - m) ** 2 for a in r) / len(r)
        s = 1.0 / math.sqrt(v + eps)
        out.extend((a - m) * s * (weight.data[c] if weight else 1.0) + (bias.data[c] if bias else 0.0)
                   for c, a in enumerate(r))
    return Tensor(out, x.shape)


nn = types.SimpleNamespace(functional=types.SimpleNamespace(layer_norm=_layer_norm))


def frombuffer(buf, dtype):
    n = len(buf) // 4
    return Tensor(list(struct.unpack("<%df" % n, bytes(buf))), (n,), leaf=True)


def _rows(t):
    rows, cols = t.shape
    return [t.data[r * cols:(r + 1) * cols] for r in range(rows)]


def mean(t, dim=-1, keepdim=True):
    return Tensor([sum(r) / len(r) for r in _rows(t)], (t.shape[0], 1))


def rsqrt(t):
    return Tensor([1.0 / math.sqrt(a) for a in t.data], t.shape)


def softmax(t, dim=-1):
    out = []
    for r in _rows(t):
        m = max(r)
        e = [math.exp(a - m) for a in r]
        s = sum(e)
        out.extend(v / s for v in e)
    if t.leaf and os.environ.get("FAKE_TORCH_WRONG_SOFTMAX"):
        out = [v * 1.01 for v in out]
    return Tensor(out, t.shape)


def compile(fn, dynamic=None, fullgraph=False):
    def compiled(x):
        if os.environ.get("FAKE_TORCH_COMPILE_FAILS"):
            # coloured as the CUTLASS DSL colours its errors (ANSI escapes):
            # peers.py keeps the text and drops the escapes
            raise RuntimeError("\x1b[91m\x1b[1mfake compile failure:\x1b[0m backend exploded")
        return fn(x)
    return compiled


_dynamo = types.SimpleNamespace(reset=lambda: None)


class no_grad:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self):
        self.t = time.perf_counter_ns()

    def query(self):
        return True

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return (end.t - self.t) / 1e6


def _available():
    return not os.environ.get("FAKE_TORCH_NO_CUDA")


cuda = types.SimpleNamespace(
    is_available=_available,
    device_count=lambda: 1 if _available() else 0,
    set_device=lambda d: None,
    get_device_name=lambda d=None: "Fake GPU",
    get_device_capability=lambda d=None: (9, 0),
    synchronize=lambda: None,
    empty_cache=lambda: None,
    _sleep=lambda cycles: None,
    Event=Event,
    OutOfMemoryError=OutOfMemoryError,
)
