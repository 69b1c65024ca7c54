#!/usr/bin/env python3
"""t_quantiles.py STATS_C - checks the table of Student's t 97.5th
percentiles in src/model/stats.c (t975_table, docs/TIMING.md "The answer's
interval") by computing them again: bisection on the t CDF, the density
integrated from 0 by Simpson's rule (math.lgamma for the constant), for
df 1 to 10 and every tenth df to 100, and the closed forms at 1 and 2.
Exits 1 naming the first df that differs by more than 1e-7."""
import math
import re
import sys


def pdf(u, v):
    return math.exp(math.lgamma((v + 1) / 2) - math.lgamma(v / 2) - 0.5 * math.log(v * math.pi)
                    - (v + 1) / 2 * math.log1p(u * u / v))


def cdf(t, v, n=4000):
    h = t / n
    s = pdf(0.0, v) + pdf(t, v)
    for i in range(1, n):
        s += (4 if i % 2 else 2) * pdf(i * h, v)
    return 0.5 + s * h / 3


def q975(v):
    lo, hi = 1.9, 13.0
    for _ in range(50):
        mid = (lo + hi) / 2
        if cdf(mid, v) < 0.975:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def main(argv):
    text = open(argv[1]).read()
    m = re.search(r"t975_table\[100\] = \{(.*?)\};", text, re.S)
    if not m:
        print("FAIL: no t975_table[100] in %s" % argv[1])
        return 1
    table = [float(x) for x in m.group(1).replace("\n", " ").split(",") if x.strip()]
    if len(table) != 100:
        print("FAIL: t975_table has %d values, want 100" % len(table))
        return 1
    closed = {1: math.tan(0.475 * math.pi), 2: math.sqrt(2 / (4 * 0.975 * 0.025) - 2)}
    for df, want in closed.items():
        if abs(table[df - 1] - want) > 1e-9:
            print("FAIL: df %d: table %.9f, closed form %.9f" % (df, table[df - 1], want))
            return 1
    for df in list(range(1, 11)) + list(range(20, 101, 10)):
        want = q975(df)
        if abs(table[df - 1] - want) > 1e-7:
            print("FAIL: df %d: table %.9f, integrated %.9f" % (df, table[df - 1], want))
            return 1
    print("ok: t975_table: df 1 and 2 match their closed forms, df 1-10 and 20-100 by 10 the "
          "integrated quantiles within 1e-7")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
