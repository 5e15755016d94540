"""The private-learning chapter (book/ch17_private_learning.ipynb) against outside references.

* The accountant numbers the chapter prints (its run, the noise levels of the cost figure, the
  noise calibrated for ε = 1, the ε after 1, 2, 4, … steps, the ε at small δ, the (ε, δ) amplification
  of one step, the full-batch noise, the conservativeness of the integer-order calibration) are read
  from the stored outputs and compared with Google's dp-accounting 0.6.0: its Rényi DP accountant and
  its PLD accountant with ``PoissonSampledDpEvent(q, GaussianDpEvent(σ))``, within 1 %. nbval
  guarantees that the stored outputs are what the notebook computes.
* The chapter's own NumPy functions (Poisson sampling by geometric gaps, the two DP-SGD trainers,
  the subsampled Gaussian's Rényi divergence by integration and by the binomial sum, the noise
  calibration, the ε of two normal laws with separate spreads) are taken from the notebook's cells and
  checked against dp-accounting, exact sums and direct computation, including extreme parameters.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import quad

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting import pld as dp_pld  # noqa: E402
from dp_accounting import rdp as dp_rdp  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant  # noqa: E402

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting warns when a fractional-order series fails

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "book" / "ch17_private_learning.ipynb"
RATE, STEPS, DELTA = 0.05, 200, 1e-5  # the chapter's run
TOLERANCE = 0.01


@functools.lru_cache(maxsize=None)
def _cells() -> list[dict]:
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


@functools.lru_cache(maxsize=None)
def _printed() -> str:
    """Every stream output of the notebook, joined."""
    chunks = []
    for cell in _cells():
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                text = output["text"]
                chunks.append("".join(text) if isinstance(text, list) else text)
    return "\n".join(chunks)


def _number(pattern: str) -> float:
    match = re.search(pattern, _printed())
    assert match, f"the chapter no longer prints {pattern!r}"
    return float(match.group(1))


@functools.lru_cache(maxsize=None)
def _chapter() -> dict:
    """The namespace of the chapter's imports and function definitions (no experiments run)."""
    namespace: dict = {"DELTA": DELTA}  # a default argument of the calibration functions
    wanted = ("def poisson_sample", "def dp_sgd(", "def dp_sgd_many", "def renyi_by_integration",
              "def calibrate_noise", "def normal_pair_epsilon")
    for cell in _cells():
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and (source.startswith("import ipywidgets") or any(w in source for w in wanted)):
            exec(compile(source, str(NOTEBOOK), "exec"), namespace)  # noqa: S102
    return namespace


@functools.lru_cache(maxsize=None)
def renyi_epsilon(sigma: float, steps: int, delta: float = DELTA) -> float:
    accountant = dp_rdp.RdpAccountant()
    step = dp_accounting.PoissonSampledDpEvent(RATE, dp_accounting.GaussianDpEvent(sigma))
    accountant.compose(dp_accounting.SelfComposedDpEvent(step, steps))
    return accountant.get_epsilon(delta)


@functools.lru_cache(maxsize=None)
def pld_epsilon(sigma: float, steps: int, delta: float = DELTA) -> float:
    # dp-accounting's default grid is 1e-4; below sigma = 1 the losses are large and 1e-3 is as accurate
    accountant = dp_pld.PLDAccountant(value_discretization_interval=1e-4 if sigma >= 1 else 1e-3)
    step = dp_accounting.PoissonSampledDpEvent(RATE, dp_accounting.GaussianDpEvent(sigma))
    accountant.compose(dp_accounting.SelfComposedDpEvent(step, steps))
    return accountant.get_epsilon(delta)


def quadrature_divergence(alpha: float, sigma: float, q: float) -> float:
    """D_alpha(P || Q) for P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2), by SciPy's adaptive quadrature."""

    def log_moment(y: float) -> float:
        log_density = -0.5 * (y / sigma) ** 2 - np.log(sigma * np.sqrt(2 * np.pi))
        return log_density + alpha * np.logaddexp(np.log1p(-q), np.log(q) + (2 * y - 1) / (2 * sigma**2))

    top = max(log_moment(0.0), log_moment(alpha))  # the integrand peaks near 0 and near alpha
    value = quad(lambda y: np.exp(log_moment(y) - top), -40 * sigma, alpha + 40 * sigma,
                 limit=500, points=[0.0, alpha], epsabs=0, epsrel=1e-11)[0]
    return (np.log(value) + top) / (alpha - 1)


def _close(ours: float, theirs: float, what: str) -> None:
    assert abs(ours / theirs - 1) < TOLERANCE, f"{what}: chapter {ours}, dp-accounting {theirs}"


# ------------------------------------------------------------ printed numbers against dp-accounting
def test_the_run_by_the_renyi_dp_accountant():
    ours = _number(r"Rényi DP accountant: eps = ([\d.]+) after 200 steps")
    _close(ours, renyi_epsilon(1.0, STEPS), "Rényi DP accountant, sigma 1, 200 steps")


def test_the_run_by_the_pld_accountant():
    ours = _number(r"PLD accountant: eps = ([\d.]+) \(record added")
    _close(ours, pld_epsilon(1.0, STEPS), "PLD accountant, sigma 1, 200 steps")


def test_the_epsilon_after_each_power_of_two_steps():
    table = re.search(r"steps: +([\d ]+)\nPLD: +([\d. ]+)\nRényi DP: +([\d. ]+)\n", _printed())
    assert table, "the chapter no longer prints the table of epsilon after 1, 2, 4, ... steps"
    steps, pld, renyi = ([float(v) for v in row.split()] for row in table.groups())
    assert steps[:3] == [1, 2, 4] and steps[-1] == STEPS
    for t, ours_pld, ours_renyi in zip(steps, pld, renyi, strict=True):
        _close(ours_renyi, renyi_epsilon(1.0, int(t)), f"Rényi DP after {t:.0f} steps")
        if t in (1, 16, 128):  # the PLD at a few checkpoints (each costs a composition)
            _close(ours_pld, pld_epsilon(1.0, int(t)), f"PLD after {t:.0f} steps")


def test_the_noise_levels_of_the_cost_figure():
    rows = re.findall(r"^ +([\d.]+) +([\d.]+) +0\.\d{4} \+- ", _printed(), flags=re.MULTILINE)
    assert len(rows) == 5, "the table of noise levels and their epsilon changed"
    for sigma, eps in rows:
        _close(float(eps), pld_epsilon(float(sigma), STEPS), f"PLD accountant, sigma {sigma}")


def test_the_noise_calibrated_for_epsilon_one():
    found = re.search(r"sigma for eps = 1: Rényi DP ([\d.]+), PLD ([\d.]+)", _printed())
    assert found
    sigma_renyi, sigma_pld = map(float, found.groups())
    # the chapter's Rényi calibration uses integer orders only: a little conservative, never looser
    assert 0.99 < renyi_epsilon(sigma_renyi, STEPS) <= 1.0 + 1e-3  # sigma is printed to three decimals
    _close(pld_epsilon(sigma_pld, STEPS), 1.0, "PLD accountant at the calibrated sigma")
    assert pld_epsilon(sigma_pld, STEPS) <= 1.0 + TOLERANCE


def test_the_audit_does_not_refute_the_accountant():
    lower = _number(r"lower bound on eps ([\d.]+) at 95 % confidence")
    worst = _number(r"white-box worst case, 1,000 runs per dataset: lower bound on eps ([\d.]+)")
    upper = pld_epsilon(1.0, STEPS)
    assert 0 < lower < worst < upper


def test_small_delta_the_pld_floor_and_the_clt():
    """Below the PLD's mass at infinity the chapter's PLD accountant gives infinity; above it, its ε is an
    upper bound, close to dp-accounting's at 1e-10 and pessimistic (not optimistic) at 1e-12."""
    rows = dict(re.findall(r"delta = (1e-\d+): PLD eps ([\d.]+|inf), Rényi DP eps [\d.]+", _printed()))
    assert set(rows) == {"1e-10", "1e-12", "1e-15"}
    _close(float(rows["1e-10"]), pld_epsilon(1.0, STEPS, 1e-10), "PLD accountant at delta 1e-10")
    assert float(rows["1e-12"]) >= pld_epsilon(1.0, STEPS, 1e-12)
    assert rows["1e-15"] == "inf"
    # at 1e-12 the chapter names dp-accounting's value and how far above it its own lies
    named = _number(r"at delta = 1e-12, dp-accounting's PLD accountant gives ([\d.]+)")
    assert named == pytest.approx(pld_epsilon(1.0, STEPS, 1e-12), abs=6e-4)
    above = _number(r"ours is ([\d.]+)% above it") / 100
    assert above == pytest.approx(float(rows["1e-12"]) / pld_epsilon(1.0, STEPS, 1e-12) - 1, abs=1.5e-3) and above > 0
    for delta in ("1e-10", "1e-12", "1e-15"):
        ours = _number(rf"delta = {delta}: PLD eps (?:[\d.]+|inf), Rényi DP eps ([\d.]+)")
        _close(ours, renyi_epsilon(1.0, STEPS, float(delta)), f"Rényi DP accountant at delta {delta}")
    mass = _number(r"the PLD's probability of an infinite loss after 200 steps: ([\d.e-]+)")
    assert 1e-13 < mass < 1e-12
    # Gaussian DP's central-limit approximation: mu = q sqrt(T (e^(1/sigma^2) - 1)), eps from the GDP curve
    mu = RATE * np.sqrt(STEPS * np.expm1(1.0))
    assert _number(r"central-limit approximation: mu = ([\d.]+)") == pytest.approx(mu, abs=1e-3)
    from scipy.optimize import brentq
    from scipy.stats import norm

    clt_eps = brentq(lambda e: norm.cdf(-e / mu + mu / 2) - np.exp(e) * norm.cdf(-e / mu - mu / 2) - DELTA, 0, 50)
    assert _number(r"central-limit approximation: mu = [\d.]+, eps = ([\d.]+)") == pytest.approx(clt_eps, abs=6e-3)
    assert clt_eps < pld_epsilon(1.0, STEPS)  # the approximation is optimistic here


def test_the_epsilon_delta_amplification_of_one_step():
    found = re.search(r"\(([\d.]+), 1e-5\)-DP; the \(eps, delta\) theorem at q = 0.05 gives \(([\d.]+), 5e-07\); "
                      r"the exact eps of the subsampled step at delta = 5e-7 is ([\d.]+)", _printed())
    assert found
    one_step, amplified, exact = map(float, found.groups())
    from scipy.optimize import brentq
    from scipy.stats import norm

    gaussian = brentq(lambda e: norm.cdf(0.5 - e) - np.exp(e) * norm.cdf(-0.5 - e) - DELTA, 0, 50)
    assert one_step == pytest.approx(gaussian, abs=1e-4)
    assert amplified == pytest.approx(np.log1p(RATE * np.expm1(gaussian)), abs=1e-4)
    accountant = dp_pld.PLDAccountant(value_discretization_interval=1e-4)
    accountant.compose(dp_accounting.PoissonSampledDpEvent(RATE, dp_accounting.GaussianDpEvent(1.0)))
    _close(exact, accountant.get_epsilon(RATE * DELTA), "one subsampled step at delta 5e-7")


def test_the_full_batch_noise_gives_the_same_epsilon():
    """Ten full-batch steps with the printed sigma have the printed epsilon (dp-accounting's PLD)."""
    rows = re.findall(r"^ +([\d.]+) +sigma +[\d.]+: 0\.\d{4} \+- 0\.\d{4} +sigma +([\d.]+): ", _printed(), flags=re.MULTILINE)
    assert len(rows) == 3
    for eps, sigma in rows:
        accountant = dp_pld.PLDAccountant(value_discretization_interval=1e-4)
        accountant.compose(dp_accounting.GaussianDpEvent(float(sigma)), 10)
        _close(accountant.get_epsilon(DELTA), float(eps), f"ten full-batch steps, sigma {sigma}")


def test_the_integer_order_calibration_is_conservative():
    rows = re.findall(r"target eps ([\d.]+) at q = ([\d.]+), T = (\d+): sigma ([\d.]+), whose PLD eps is ([\d.]+)", _printed())
    assert len(rows) == 2
    for target, q, steps, sigma, printed in rows:
        accountant = dp_pld.PLDAccountant(value_discretization_interval=1e-4)
        accountant.compose(dp_accounting.PoissonSampledDpEvent(float(q), dp_accounting.GaussianDpEvent(float(sigma))), int(steps))
        theirs = accountant.get_epsilon(DELTA)
        assert abs(float(printed) / theirs - 1) < 0.02, (q, steps)  # sigma is printed to three decimals
        assert theirs <= float(target)
    assert min(float(r[4]) / float(r[0]) for r in rows) < 0.55  # half the target at q = 0.01, T = 50


# ------------------------------------------------------------ the chapter's functions
def test_renyi_divergence_by_integration_matches_dp_accounting_and_quadrature():
    """Integer orders: dp-accounting's exact binomial sum. Fractional orders: SciPy's adaptive quadrature
    (dp-accounting's series there is an upper bound, off by up to 1e-4 relative at these settings)."""
    integrate = _chapter()["renyi_by_integration"]
    for sigma, q in [(1.0, 0.05), (2.0, 0.01), (0.8, 0.2), (5.0, 0.5)]:
        for alpha in [2.0, 5.0, 8.0, 16.0, 32.0]:
            theirs = rdp_privacy_accountant._compute_rdp_poisson_subsampled_gaussian(q, sigma, [alpha])[0]
            assert integrate(alpha, sigma, q) == pytest.approx(theirs, rel=1e-6), (sigma, q, alpha)
        for alpha in [1.5, 2.5, 8.5, 32.5]:
            expected = quadrature_divergence(alpha, sigma, q)
            assert integrate(alpha, sigma, q) == pytest.approx(expected, rel=1e-6), (sigma, q, alpha)


def test_the_reverse_divergence_is_the_smaller():
    integrate = _chapter()["renyi_by_integration"]
    for sigma, q in [(1.0, 0.05), (0.7, 0.3), (4.0, 0.01)]:
        for alpha in [1.5, 2.0, 8.5, 40.0]:
            assert integrate(alpha, sigma, q, -1) <= integrate(alpha, sigma, q)


def test_the_binomial_sum_at_integer_orders():
    chapter = _chapter()
    exec(compile("".join(next(c["source"] for c in _cells() if "def renyi_integer_orders" in "".join(c["source"]))),
                 str(NOTEBOOK), "exec"), chapter)  # noqa: S102
    orders = np.arange(2, 65)
    sigmas = np.array([0.5, 1.0, 3.0, 30.0])
    rows = chapter["renyi_integer_orders"](orders, sigmas, 0.05)
    assert rows.shape == (sigmas.size, orders.size) and np.all(np.isfinite(rows))
    for sigma, row in zip(sigmas, rows, strict=True):
        theirs = rdp_privacy_accountant._compute_rdp_poisson_subsampled_gaussian(0.05, sigma, list(orders))
        assert np.allclose(row, theirs, rtol=1e-9, atol=1e-15), sigma


def test_poisson_sample_keeps_each_index_independently_with_probability_q():
    sample = _chapter()["poisson_sample"]
    rng = np.random.default_rng(0)
    size, rate, draws = 40, 0.3, 20_000
    kept = np.zeros((draws, size), dtype=bool)
    flat = sample(draws * size, rate, rng)  # one long index: draws independent subsamples of size 40
    kept.ravel()[flat] = True
    frequency = kept.mean(axis=0)
    assert np.all(np.abs(frequency - rate) < 5 * np.sqrt(rate * (1 - rate) / draws))
    pair = np.mean(kept[:, 0] & kept[:, 1])
    assert abs(pair - rate**2) < 5 * np.sqrt(rate**2 * (1 - rate**2) / draws)
    sizes = kept.sum(axis=1)
    assert abs(sizes.var() / (size * rate * (1 - rate)) - 1) < 5 * np.sqrt(2 / draws)


def test_poisson_sample_at_extreme_parameters():
    sample = _chapter()["poisson_sample"]
    rng = np.random.default_rng(1)
    assert sample(0, 0.5, rng).size == 0
    assert np.array_equal(sample(1_000, 1.0, rng), np.arange(1_000))
    assert sample(10, 1e-9, rng).size == 0  # almost surely nothing, and no endless loop
    assert sample(10**6, 1e-20, rng).size == 0  # a gap far beyond the end does not overflow
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # q = 0: no division by zero, nothing kept
        assert sample(1_000, 0.0, rng).size == 0 and sample(1_000, -0.1, rng).size == 0
    big = sample(10**9, 1e-6, rng)  # a billion records: about a thousand kept
    assert np.all(np.diff(big) > 0) and big[-1] < 10**9 and 800 < big.size < 1_200


def test_dp_sgd_clips_each_gradient_and_the_trainers_agree():
    chapter = _chapter()
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.normal(0, 3, size=(200, 4)), np.ones(200)])
    y = (rng.random(200) < 0.4).astype(float)
    clip, lot, learning_rate = 0.7, 10.0, 0.5
    # one noise-free step with every record in the batch, from w = 0: minus the sum of the clipped gradients
    W = chapter["dp_sgd_many"](X, y, np.zeros(1), clip, 1.0, 1, learning_rate, lot, rng)
    grads = (0.5 - y)[:, None] * X
    clipped = grads * np.minimum(1, clip / np.linalg.norm(grads, axis=1))[:, None]
    assert np.allclose(W[0], -learning_rate / lot * clipped.sum(axis=0), rtol=1e-12)
    # with one model and the same seed, the batched trainer reproduces the loop
    loop = chapter["dp_sgd"](X, y, 1.3, clip, 0.2, 30, learning_rate, lot, np.random.default_rng(3))
    batched = chapter["dp_sgd_many"](X, y, np.array([1.3]), clip, 0.2, 30, learning_rate, lot, np.random.default_rng(3))
    assert np.allclose(loop, batched[0], rtol=1e-9, atol=1e-12)
    # per-model clipping norms, an empty dataset and a large noise multiplier stay finite
    W = chapter["dp_sgd_many"](X, y, np.array([0.0, 1e6]), np.array([1e-6, 1e3]), 0.1, 20, learning_rate, lot, rng)
    assert np.all(np.isfinite(W))
    empty = chapter["dp_sgd_many"](X[:0], y[:0], np.ones(3), clip, 0.1, 5, learning_rate, lot, rng)
    assert empty.shape == (3, X.shape[1]) and np.all(np.isfinite(empty))


def test_renyi_curves_at_extreme_parameters():
    """q = 1 (every record) is the Gaussian's alpha / (2 sigma^2); no NaN, no negative divergence."""
    chapter = _chapter()
    orders = np.arange(2, 65)
    for sigma in [0.1, 1.0, 1e3]:
        exact = orders / (2 * sigma**2)
        assert np.allclose(chapter["renyi_integer_orders"](orders, sigma, 1.0), exact, rtol=1e-9)
        assert chapter["renyi_by_integration"](8.0, sigma, 1.0) == pytest.approx(8 / (2 * sigma**2), rel=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # q = 0 (no record sampled) is no privacy loss: exactly 0, no NaN
        assert np.array_equal(chapter["renyi_integer_orders"](orders, np.array([0.5, 1.0, 30.0]), 0.0), np.zeros((3, orders.size)))
    assert chapter["renyi_by_integration"](8.0, 1.0, 0.0) == pytest.approx(0.0, abs=1e-14)
    tiny = chapter["renyi_integer_orders"](orders, 1e6, 1e-9)  # far below the 1e-16 rounding of 1 + D
    assert np.all(np.isfinite(tiny)) and np.all(tiny >= 0) and np.all(tiny < 1e-15)
    assert 0 <= chapter["renyi_by_integration"](2.0, 1e6, 1e-9) < 1e-14


def test_calibrate_noise_meets_its_target_or_raises():
    chapter = _chapter()
    calibrate, epsilon = chapter["calibrate_noise"], chapter["renyi_integer_epsilon"]
    for target, q, steps in [(1.0, 0.05, 200), (0.25, 0.1, 400), (8.0, 0.01, 50)]:
        sigma = calibrate(target, q, steps)
        assert epsilon(sigma, q, steps) <= target * (1 + 1e-9)
        assert epsilon(sigma * (1 - 1e-4), q, steps) > target * (1 - 1e-3)  # and not far more noise than needed
    # the conversion's value as sigma -> infinity: the delta term alone at the best order up to 128
    alpha = np.arange(2, 129)
    floor = np.min(np.log1p(-1 / alpha) - (np.log(DELTA) + np.log(alpha)) / (alpha - 1))
    assert floor == pytest.approx(0.0446, abs=5e-5)
    assert epsilon(1e8, 0.05, 200) == pytest.approx(floor, abs=1e-6) and epsilon(200.0, 0.05, 200) > 0.045
    for q, steps in [(0.05, 200), (0.001, 1), (1.0, 10_000)]:
        with pytest.raises(ValueError, match=r"below 0\.0446.*higher orders or the PLD accountant"):
            calibrate(0.04, q, steps)  # below the floor, whatever sigma, q and T
    with pytest.raises(ValueError, match="needs sigma > 200"):
        calibrate(0.045, 0.05, 200)  # above the floor, but sigma = 200 gives 0.0454


def test_normal_pair_epsilon_matches_numerical_integration():
    """The chapter's exact epsilon of two normal laws with separate spreads, against a direct integral of
    the hockey-stick divergence, and against the equal-spread formula as the spreads meet."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    pair = _chapter()["normal_pair_epsilon"]
    y = np.linspace(-400, 400, 800_001)
    for mean_p, sd_p, mean_q, sd_q in [(0.0, 1.0, 0.5, 1.3), (12.0, 31.7, 0.0, 36.2), (0.0, 36.2, 12.0, 31.7), (1.0, 2.0, 0.0, 1.0)]:
        p, q = norm.pdf(y, mean_p, sd_p), norm.pdf(y, mean_q, sd_q)
        delta = lambda e, p=p, q=q: np.trapezoid(np.maximum(p - np.exp(e) * q, 0.0), y) - DELTA  # noqa: E731
        assert pair(mean_p, sd_p, mean_q, sd_q, DELTA) == pytest.approx(brentq(delta, 0, 40), abs=2e-3)
    mu = 0.4
    equal = brentq(lambda e: norm.cdf(-e / mu + mu / 2) - np.exp(e) * norm.cdf(-e / mu - mu / 2) - DELTA, 0, 50)
    assert pair(mu, 1.0, 0.0, 1.0 + 1e-6, DELTA) == pytest.approx(equal, abs=1e-3)
