# A stand-in that fails to import, so that the "no torch" path of
# bench/peers.py is tested the same way on a machine that has torch.
raise ImportError("No module named 'torch' (tests/peers/no_torch stand-in)")
