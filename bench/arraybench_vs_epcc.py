#!/usr/bin/env python3
"""hybridperf-ompbench's data clauses against EPCC v4's arraybench (PRIVATE, FIRSTPRIVATE, COPYPRIVATE, COPYIN per array size).

The same comparison as bench/ompbench_vs_epcc.py (whose rounds, launch line and verdict rule it uses): in each
round, ours runs `--bench array` at the chosen sizes once and EPCC runs its arraybench_N program once per size
N (EPCC compiles one program per array size), in an order drawn from the run's seed, with the same threads
(default 2), --test-time, --delay-time and outer repetitions. Each construct and size, e.g. COPYIN_729, is
judged as the ratio ours/EPCC of the medians over the rounds against the `overhead` band of
bench/references.yaml, or, where either median is below 0.05 µs, by the difference against
`overhead_near_zero_us`. Timings are only meaningful on an otherwise idle machine; this is a benchmark, not a test.

    EPCC_BENCH_DIR=~/.cache/epcc-v4 python bench/arraybench_vs_epcc.py [--repeats 30] [--threads 2]
        [--sizes 1,27,729,19683] [--test-time 1000] [--outer-reps 20] [--series NAME --series-size K]

EPCC_BENCH_DIR holds arraybench_1 ... arraybench_59049, built outside this project from
https://github.com/EPCCed/epcc-openmp-microbenchmarks (openmpbench_C_v40) with `make IDA=N prog` for each size
(docs/ompbench.md). Without them the script says so and exits.
"""

from __future__ import annotations

import argparse

import common
import ompbench_vs_epcc as epcc_bench

BENCH = "arraybench_vs_epcc"
SIZES = [3**k for k in range(11)]  # EPCC's: 1, 3, 9, ..., 59049
figures = epcc_bench.figures  # tables.py judges each construct and size by the same rule as the other constructs


def parse_sizes(text: str) -> list[int]:
    """Comma-separated array sizes, each one of EPCC's; ValueError naming the first that is not."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    if not words:
        raise ValueError("--sizes: give at least one size")
    for word in words:
        if not word.isdigit() or int(word) not in SIZES:
            raise ValueError(f"--sizes: {word} is not one of EPCC's sizes {', '.join(map(str, SIZES))}")
    return [int(w) for w in words]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    epcc_bench.add_method_options(parser)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)),
                        help="comma-separated array sizes, powers of 3 up to 59049 (default: all eleven)")
    args = common.arguments(parser, BENCH)
    try:
        sizes = parse_sizes(args.sizes)
    except ValueError as err:
        parser.error(str(err))
    programs = [f"arraybench_{n}" for n in sizes]
    epcc = epcc_bench.epcc_dir(programs)
    if epcc is None:
        return
    ours_method, epcc_method = epcc_bench.method_args(args)
    ours_args = ["--bench", "array", "--array-sizes", ",".join(map(str, sizes)), *ours_method]
    epcc_bench.compare(BENCH, args, epcc, ours_args, [(epcc / p, epcc_method) for p in programs])


if __name__ == "__main__":
    main()
