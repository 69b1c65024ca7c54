# Host simulation of the v4 megakernel schedule: every block's visits (units
# u, u+G, ... of one row), coverage of every tile exactly once, and progress
# under random interleavings with the kernel's waits (arrive, wait n+1).
import random, itertools, sys
def start(j, n, q):  # se_mk_unit_start: the kernel's split, no j * n product
    r = n % q
    return j * (n // q) + min(j, r)
def visits(rows, n, k, G, b):
    q = -(-n // k); units = rows * q; u = b; out = []
    while u < units:
        row = u // q; ue = u; tiles = []
        while ue < units and ue // q == row:
            j = ue - row * q
            tiles += list(range(start(j, n, q), start(j + 1, n, q))); ue += G
        out.append((row, tiles)); u = ue
    return out
def run(rows, n, k, G, seed):
    rnd = random.Random(seed)
    V = [visits(rows, n, k, G, b) for b in range(G)]
    seen = {}
    for b in range(G):
        for row, tiles in V[b]:
            for t in tiles:
                assert (row, t) not in seen, ("dup", row, t); seen[(row, t)] = b
    assert len(seen) == rows * n, ("coverage", len(seen), rows * n)
    ctrA = [0] * rows; ctrC = [0] * rows
    # state per block: (visit index, step) step 0: A+arrive, 1: wait A, 2: C+arrive, 3: wait C, 4: E
    st = [[0, 0] for _ in range(G)]
    done = 0
    while True:
        live = [b for b in range(G) if st[b][0] < len(V[b])]
        if not live: return True
        rnd.shuffle(live); moved = False
        for b in live:
            vi, step = st[b]; row, tiles = V[b][vi]
            if step == 0:
                ctrA[row] += len(tiles)
                if ctrA[row] == n: ctrA[row] += 1   # last arriver runs B
                st[b][1] = 1; moved = True
            elif step == 1:
                if ctrA[row] == n + 1: st[b][1] = 2; moved = True
            elif step == 2:
                ctrC[row] += len(tiles)
                if ctrC[row] == n: ctrC[row] += 1
                st[b][1] = 3; moved = True
            elif step == 3:
                if ctrC[row] == n + 1: st[b][1] = 4; moved = True
            else:
                st[b] = [vi + 1, 0]; moved = True
            if moved: break
        if not moved:
            raise SystemExit("deadlock rows=%d n=%d k=%d G=%d" % (rows, n, k, G))
# Units of at most k tiles, never empty, as even as they go.
for n in range(1, 300):
    for k in range(1, 9):
        q = -(-n // k); sizes = [start(j + 1, n, q) - start(j, n, q) for j in range(q)]
        assert start(q, n, q) == n and min(sizes) >= 1 and max(sizes) <= k and max(sizes) - min(sizes) <= 1, (n, k)
cases = 0
for rows, n in [(1,1),(3,2),(32,1),(7,1),(2,25),(4,1024),(8,256),(5,3),(33,1),(1,7),(2,97)]:
    for k in [1,2,3,5]:
        for G in [1,2,3,7,16,40]:
            for seed in range(3):
                run(rows, n, k, G, seed); cases += 1
print("ok:", cases, "schedules covered every tile once and completed")
