"""A stand-in for Liger-Kernel (tests/peers): its softmax is the fake torch's."""
