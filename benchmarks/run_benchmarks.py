"""Benchmark rdplib against raw NumPy, diffprivlib and OpenDP, in one run.

Run with ``make bench`` (installs ``benchmarks/requirements-bench.txt`` first) or
``.venv/bin/python benchmarks/run_benchmarks.py [--rounds R] [--quick]``.

Design
------
* Every case is timed in *rounds*; in each round every implementation of every case
  runs (the fast ones several times, alternating their order), so that drift in the
  machine's load hits all of them alike. Medians over all repetitions are reported.
* Every implementation gets its own ``numpy.random.Generator`` made before timing,
  so generator construction is not timed for anyone.
* diffprivlib's mechanisms work on one value at a time (a Python call per element);
  OpenDP's exact samplers are also slow. Those are timed on a smaller ``n`` and their
  time is extrapolated *per element* to 10^6 elements: such rows are marked
  ``extrapolated``.
* ``project_to_histograms`` is compared with ``scipy.optimize.linprog`` (HiGHS, with
  the counts declared integer) on the same input; the two objectives must agree.

rdplib's targets (issue 3): within 1.3x of raw NumPy on 10^6-element Laplace,
randomized response and discrete Laplace; >= 200x faster than diffprivlib per element;
projection at k = 10^5, n = 10^6 under 50 ms and >= 100x faster than the LP at k = 10^3.
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Callable

import numpy as np
import scipy
from scipy import sparse
from scipy.optimize import linprog

import rdplib

warnings.filterwarnings("ignore")  # diffprivlib warns about its own floating-point samplers

N = 1_000_000
EPSILON = 1.0
SENSITIVITY = 1.0
N_DIFFPRIVLIB = 2_000  # elements per timed diffprivlib run (one Python call each)
N_OPENDP = 20_000  # elements per timed OpenDP run for the element-wise samplers
K_HIST = 100  # cells of the 10^6-record histogram
K_LP, N_LP = 1_000, 10_000  # projection vs LP
K_BIG, N_BIG = 100_000, 1_000_000  # projection alone

try:
    from diffprivlib import tools as dpl_tools
    from diffprivlib.mechanisms import Binary as DplBinary
    from diffprivlib.mechanisms import Geometric as DplGeometric
    from diffprivlib.mechanisms import Laplace as DplLaplace

    HAVE_DIFFPRIVLIB = True
except ImportError:  # pragma: no cover - benchmark extras not installed
    HAVE_DIFFPRIVLIB = False

try:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    HAVE_OPENDP = True
except ImportError:  # pragma: no cover
    HAVE_OPENDP = False


class Impl:
    """One implementation of one case: a zero-argument callable timed on ``n`` elements."""

    def __init__(self, case: str, name: str, func: Callable[[], object], n: int, note: str = "",
                 repeats: int = 1) -> None:
        self.case, self.name, self.func, self.n, self.note, self.repeats = case, name, func, n, note, repeats
        self.times: list[float] = []

    def run(self) -> None:
        start = time.perf_counter()
        self.func()
        self.times.append(time.perf_counter() - start)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    def per_million(self) -> float:
        """Median seconds scaled to 10^6 elements (exact when n = 10^6)."""
        return self.median * (N / self.n)


def build_cases(quick: bool) -> dict[str, list[Impl]]:
    cases: dict[str, list[Impl]] = defaultdict(list)
    seeds = iter(range(1_000))

    def gen() -> np.random.Generator:
        return np.random.default_rng(next(seeds))

    inner = 3 if quick else 7
    x = np.zeros(N)
    bits = (np.random.default_rng(0).random(N) < 0.3).astype(np.int8)
    ints = np.zeros(N, dtype=np.int64)
    q = 1.0 / (1.0 + math.exp(EPSILON))
    a = math.exp(-EPSILON / SENSITIVITY)

    # ---- Laplace
    g_np, g_rd = gen(), gen()
    cases["Laplace"] += [
        Impl("Laplace", "NumPy", lambda: x + g_np.laplace(0.0, SENSITIVITY / EPSILON, size=N), N, repeats=inner),
        Impl("Laplace", "rdplib", lambda: rdplib.laplace_mechanism(x, SENSITIVITY, EPSILON, rng=g_rd), N,
             repeats=inner),
    ]
    # ---- randomized response
    g_np2, g_rd2 = gen(), gen()
    cases["Randomized response"] += [
        Impl("Randomized response", "NumPy", lambda: bits ^ (g_np2.random(N) < q), N, repeats=inner),
        Impl("Randomized response", "rdplib", lambda: rdplib.randomized_response(bits, EPSILON, rng=g_rd2), N,
             repeats=inner),
    ]
    # ---- discrete Laplace (two-sided geometric)
    g_np3, g_rd3 = gen(), gen()
    cases["Discrete Laplace"] += [
        Impl("Discrete Laplace", "NumPy",
             lambda: ints + (g_np3.geometric(1 - a, size=N) - g_np3.geometric(1 - a, size=N)), N, repeats=inner),
        Impl("Discrete Laplace", "rdplib",
             lambda: rdplib.geometric_mechanism(ints, int(SENSITIVITY), EPSILON, rng=g_rd3), N, repeats=inner),
    ]
    # ---- histogram of 10^6 records
    cells = np.random.default_rng(1).integers(0, K_HIST, size=N)
    g_np4, g_rd4 = gen(), gen()
    cases["Histogram (10^6 records)"] += [
        Impl("Histogram (10^6 records)", "NumPy",
             lambda: np.bincount(cells, minlength=K_HIST) / N + g_np4.laplace(0.0, 2.0 / (N * EPSILON), K_HIST), N,
             repeats=inner),
        Impl("Histogram (10^6 records)", "rdplib",
             lambda: rdplib.dp_histogram(rdplib.histogram_counts(cells, K_HIST), EPSILON, rng=g_rd4), N,
             repeats=inner),
    ]

    if HAVE_DIFFPRIVLIB:
        lap = DplLaplace(epsilon=EPSILON, sensitivity=SENSITIVITY)
        binary = DplBinary(epsilon=EPSILON, value0="0", value1="1")
        geo = DplGeometric(epsilon=EPSILON, sensitivity=int(SENSITIVITY))
        labels = ["1" if b else "0" for b in bits[:N_DIFFPRIVLIB]]
        note = "per element, extrapolated"
        cases["Laplace"].append(Impl("Laplace", "diffprivlib", lambda: [lap.randomise(0.0) for _ in range(N_DIFFPRIVLIB)],
                                     N_DIFFPRIVLIB, note))
        cases["Randomized response"].append(Impl("Randomized response", "diffprivlib",
                                                 lambda: [binary.randomise(v) for v in labels], N_DIFFPRIVLIB, note))
        cases["Discrete Laplace"].append(Impl("Discrete Laplace", "diffprivlib",
                                              lambda: [geo.randomise(0) for _ in range(N_DIFFPRIVLIB)],
                                              N_DIFFPRIVLIB, note))
        cases["Histogram (10^6 records)"].append(Impl(
            "Histogram (10^6 records)", "diffprivlib",
            lambda: dpl_tools.histogram(cells, epsilon=EPSILON, bins=K_HIST, range=(0, K_HIST)), N,
            "tools.histogram (geometric noise on counts)"))

    if HAVE_OPENDP:
        float_domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))
        odp_laplace = dp.m.make_laplace(float_domain, dp.l1_distance(T=float), scale=SENSITIVITY / EPSILON)
        int_domain = dp.vector_domain(dp.atom_domain(T=int))
        odp_discrete = dp.m.make_laplace(int_domain, dp.l1_distance(T=int), scale=SENSITIVITY / EPSILON)
        # RAPPOR-style bit-vector RR: each bit is replaced by a fair coin w.p. f, so it flips w.p. f/2 = q.
        odp_rr = dp.m.make_randomized_response_bitvec(
            dp.bitvector_domain(max_weight=N_OPENDP), dp.discrete_distance(), f=2 * q)
        xs = x[:N_OPENDP].tolist()
        packed = np.packbits(bits[:N_OPENDP].astype(bool))
        int_list = [0] * N_OPENDP
        counter = (
            dp.t.make_count_by_categories(int_domain, dp.symmetric_distance(), categories=list(range(K_HIST)),
                                          null_category=False)
            >> dp.m.then_laplace(scale=2.0 / EPSILON)
        )
        cell_list = cells.tolist()
        note = "exact sampler, extrapolated"
        cases["Laplace"].append(Impl("Laplace", "OpenDP", lambda: odp_laplace(xs), N_OPENDP, note))
        cases["Randomized response"].append(Impl(
            "Randomized response", "OpenDP",
            lambda: np.unpackbits(np.frombuffer(odp_rr(packed), dtype=np.uint8)), N_OPENDP,
            "bitvec RR, extrapolated"))
        cases["Discrete Laplace"].append(Impl("Discrete Laplace", "OpenDP", lambda: odp_discrete(int_list), N_OPENDP,
                                              note))
        cases["Histogram (10^6 records)"].append(Impl(
            "Histogram (10^6 records)", "OpenDP", lambda: counter(cell_list), N,
            "count_by_categories >> laplace on counts"))
    return cases


def lp_projection(z: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    """The L1 projection as an integer program for scipy's HiGHS: min sum t, t >= |n z - c|."""
    k = z.size
    w = n * z
    eye = sparse.identity(k, format="csr")
    a_ub = sparse.vstack([sparse.hstack([eye, -eye]), sparse.hstack([-eye, -eye])], format="csr")
    b_ub = np.concatenate([w, -w])
    a_eq = sparse.csr_matrix(np.concatenate([np.ones(k), np.zeros(k)])[None, :])
    cost = np.concatenate([np.zeros(k), np.ones(k)])
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[n], bounds=(0, None),
                  integrality=np.concatenate([np.ones(k), np.zeros(k)]), method="highs")
    if res.status != 0:
        raise RuntimeError(f"linprog failed: {res.message}")
    counts = np.round(res.x[:k])
    return counts / n, float(res.fun) / n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke test)")
    args = parser.parse_args()
    rounds = 2 if args.quick else args.rounds

    print(f"Python {platform.python_version()}, NumPy {np.__version__}, SciPy {scipy.__version__}, "
          f"rdplib {rdplib.__version__}, {platform.machine()}")
    if HAVE_DIFFPRIVLIB:
        import diffprivlib

        print(f"diffprivlib {diffprivlib.__version__}", end=", ")
    else:
        print("diffprivlib not installed", end=", ")
    if HAVE_OPENDP:
        from importlib.metadata import version

        print(f"OpenDP {version('opendp')}")
    else:
        print("OpenDP not installed")

    cases = build_cases(args.quick)

    # projection inputs
    rng = np.random.default_rng(2025)
    lp_counts = rng.multinomial(N_LP, rng.dirichlet(np.ones(K_LP)))
    z_lp = rdplib.dp_histogram(lp_counts, EPSILON, rng=rng)
    big_counts = rng.multinomial(N_BIG, np.full(K_BIG, 1.0 / K_BIG))
    z_big = rdplib.dp_histogram(big_counts, EPSILON, rng=rng)
    proj = {
        "rdplib k=1e3": Impl("Projection k=10^3", "rdplib", lambda: rdplib.project_to_histograms(z_lp, N_LP), 1,
                             repeats=5),
        "linprog k=1e3": Impl("Projection k=10^3", "linprog (HiGHS)", lambda: lp_projection(z_lp, N_LP), 1),
        "rdplib k=1e5": Impl("Projection k=10^5, n=10^6", "rdplib",
                             lambda: rdplib.project_to_histograms(z_big, N_BIG), 1, repeats=5),
    }

    # equal objectives (checked once, before timing)
    ours = rdplib.project_to_histograms(z_lp, N_LP)
    lp_hist, lp_objective = lp_projection(z_lp, N_LP)
    our_objective = rdplib.l1_loss(z_lp, ours)
    assert abs(our_objective - lp_objective) <= 1e-9 * max(1.0, lp_objective), (our_objective, lp_objective)
    assert abs(rdplib.l1_loss(z_lp, lp_hist) - lp_objective) < 1e-9

    all_impls = [impl for impls in cases.values() for impl in impls] + list(proj.values())
    for impl in all_impls:  # warm-up: imports, caches, first-call overheads
        impl.run()
        impl.times.clear()
    for r in range(rounds):
        print(f"round {r + 1}/{rounds} ...", file=sys.stderr, flush=True)
        for impls in [*cases.values(), list(proj.values())]:
            most = max(impl.repeats for impl in impls)
            for i in range(most):
                order = impls if (r + i) % 2 == 0 else impls[::-1]  # alternate who goes first
                for impl in order:
                    if i < impl.repeats:
                        impl.run()

    # ---- report
    print()
    print(f"{'case':<26} {'implementation':<16} {'n timed':>9} {'median, per 10^6':>17} "
          f"{'x rdplib':>10}  note")
    print("-" * 100)
    for case, impls in cases.items():
        ours_time = next(i for i in impls if i.name == "rdplib").per_million()
        for impl in impls:
            t = impl.per_million()
            print(f"{case:<26} {impl.name:<16} {impl.n:>9,} {_fmt(t):>17} {t / ours_time:>10.2f}  {impl.note}")
    print()
    print(f"{'projection':<26} {'implementation':<16} {'':>9} {'median':>17} {'x rdplib':>10}")
    print("-" * 100)
    base_lp = proj["rdplib k=1e3"].median
    for impl in proj.values():
        ratio = impl.median / base_lp if impl.case == "Projection k=10^3" else float("nan")
        print(f"{impl.case:<26} {impl.name:<16} {'':>9} {_fmt(impl.median):>17} "
              f"{'' if math.isnan(ratio) else f'{ratio:10.1f}':>10}")
    print(f"objective at k=10^3, n=10^4: rdplib {our_objective:.12f}, linprog {lp_objective:.12f} (equal)")

    # ---- targets
    print()
    checks = []
    for case in ("Laplace", "Randomized response", "Discrete Laplace"):
        impls = {i.name: i for i in cases[case]}
        ratio = impls["rdplib"].per_million() / impls["NumPy"].per_million()
        checks.append((f"{case}: rdplib / NumPy = {ratio:.2f} (target <= 1.3)", ratio <= 1.3))
        if "diffprivlib" in impls:
            speedup = impls["diffprivlib"].per_million() / impls["rdplib"].per_million()
            checks.append((f"{case}: diffprivlib / rdplib per element = {speedup:,.0f}x (target >= 200x)",
                           speedup >= 200))
    big = proj["rdplib k=1e5"].median
    checks.append((f"projection k=10^5, n=10^6: {big * 1e3:.1f} ms (target < 50 ms)", big < 0.05))
    speedup = proj["linprog k=1e3"].median / base_lp
    checks.append((f"projection k=10^3: linprog / rdplib = {speedup:,.0f}x (target >= 100x)", speedup >= 100))
    for text, ok in checks:
        print(f"[{'PASS' if ok else 'MISS'}] {text}")
    return 0


def _fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


if __name__ == "__main__":
    raise SystemExit(main())
