import sys, torch
from liger_kernel.ops.softmax import LigerSoftmaxFunction
for shp in sys.argv[1:]:
    r, c = map(int, shp.split("x"))
    x = torch.randn(r, c, device="cuda")
    with torch.no_grad():
        for _ in range(3):
            y = LigerSoftmaxFunction.apply(x)
    torch.cuda.synchronize()
    print(shp, float((y - torch.softmax(x, -1)).abs().max()))
