# ncu_peers.py - runs Liger's and Quack's softmax on the shapes given: three
# calls to compile and warm each, then one inside the NVTX range "measure",
# which ncu (--nvtx --nvtx-include "measure/") profiles alone. The printed
# "measure PEER SHAPE" lines give the order of the profiled kernels.
import sys
sys.path.insert(0, "bench")
import torch
import peers as P
torch.manual_seed(1)
fns = {"liger": P.liger_softmax(torch), "quack": P.quack_softmax(torch)}
for shape in sys.argv[1:]:
    r, c = map(int, shape.split("x"))
    x = torch.randn(r, c, device="cuda", dtype=torch.float32) * 16
    for name, f in fns.items():
        for _ in range(3):
            f(x)  # compile / warm
        torch.cuda.synchronize()
        print("measure", name, shape, flush=True)
        torch.cuda.nvtx.range_push("measure")
        f(x)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
print("ncu_peers: done")
