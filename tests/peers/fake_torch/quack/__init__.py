"""A stand-in for Quack (tests/peers): its softmax is the fake torch's."""
