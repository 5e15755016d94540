"""The exam bank (book/assignments/exam_bank.md): its structure and its numbers.

Structure: at least 30 questions, each with a heading "### Qn. Title (kind, N points)", a {doc} link to the
chapter it draws on, a solution dropdown and a rubric whose points add up to N; at least 6 questions per part
of the book, a part being decided by the chapters a question links to. The page must also read as plain
Markdown (no backtick-fenced directive, no math in a code block), as the chapters must.

Numbers: every numeric answer listed below is recomputed here with NumPy, SciPy or rdplib and must appear
in the page exactly as printed (the string formatted to the printed precision).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import rdplib

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "assignments" / "exam_bank.md"
TEXT = PAGE.read_text(encoding="utf-8")

PART_OF_CHAPTER = {**{c: "I" for c in range(1, 8)}, **{c: "II" for c in range(8, 11)},
                   **{c: "III" for c in range(11, 15)}, **{c: "IV" for c in range(15, 18)}}
HEADING = re.compile(r"^### Q(\d+)\. (.+) \(([^()]+), (\d+) points?\)$", re.M)


def questions() -> list[dict]:
    """Each question: number, title, kind, points, body (up to the next heading)."""
    found = list(HEADING.finditer(TEXT))
    out = []
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(TEXT)
        body = TEXT[m.end():end]
        body = body.split("\n## ")[0]  # stop at the next part heading
        out.append({"number": int(m.group(1)), "title": m.group(2), "kind": m.group(3),
                    "points": int(m.group(4)), "body": body})
    return out


QUESTIONS = questions()


def test_at_least_thirty_questions_numbered_in_order():
    assert len(QUESTIONS) >= 30
    assert [q["number"] for q in QUESTIONS] == list(range(1, len(QUESTIONS) + 1))


@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: f"Q{q['number']}")
def test_question_has_solution_rubric_and_chapter(q):
    body = q["body"]
    assert body.count(":::{dropdown} Solution") == 1, "exactly one solution dropdown"
    solution = body.split(":::{dropdown} Solution", 1)[1]
    assert solution.rstrip().endswith(":::"), "the dropdown is closed"
    rubric = re.search(r"\*\*Rubric \((\d+) points?\)\.\*\*(.*?)\n:::", solution, re.S)
    assert rubric, "a rubric at the end of the solution"
    assert int(rubric.group(1)) == q["points"], "rubric total equals the heading's points"
    parts = [int(p) for p in re.findall(r"\b(\d+) points?:", rubric.group(2))]
    assert parts and sum(parts) == q["points"], f"rubric items {parts} add up to {q['points']}"
    chapters = [int(c) for c in re.findall(r"\{doc\}`\.\./ch(\d\d)_", body.split(":::{dropdown}")[0])]
    assert chapters, "the question links the chapter it draws on"
    assert 2 <= q["points"] <= 10


def test_chapter_links_exist():
    for name in set(re.findall(r"\{doc\}`\.\./(ch\d\d_[a-z_]+)`", TEXT)):
        assert (ROOT / "book" / f"{name}.ipynb").exists(), name


def test_at_least_six_questions_per_part_and_every_part_under_its_heading():
    counts = {"I": 0, "II": 0, "III": 0, "IV": 0}
    sections = re.split(r"^## Part (I|II|III|IV):", TEXT, flags=re.M)
    heading_part = {}
    for label, content in zip(sections[1::2], sections[2::2], strict=False):
        for m in HEADING.finditer(content):
            heading_part[int(m.group(1))] = label
    for q in QUESTIONS:
        first = int(re.search(r"\{doc\}`\.\./ch(\d\d)_", q["body"]).group(1))
        part = PART_OF_CHAPTER[first]
        assert heading_part[q["number"]] == part, f"Q{q['number']} sits under the wrong part"
        counts[part] += 1
    assert all(n >= 6 for n in counts.values()), counts


def test_mix_of_kinds():
    kinds = " ".join(q["kind"] for q in QUESTIONS)
    for kind in ("conceptual", "numerical", "proof", "derivation", "find the bug", "design an experiment"):
        assert kind in kinds, kind


def test_plain_markdown_render():
    from tests.test_plain_render import problems_in

    assert problems_in(TEXT) == []


def _in_page(value: str) -> None:
    assert value in TEXT, f"{value!r} not printed in the exam bank"


def _fmt(x: float, digits: int) -> str:
    return f"{x:.{digits}f}"


def test_q2_differencing_with_laplace_noise():
    def success(b):
        return 1 - 0.5 * math.exp(-1 / (2 * b)) * (1 + 1 / (4 * b))
    _in_page(_fmt(success(0.5), 4))  # 0.7241
    _in_page(_fmt(success(5), 4))  # 0.5250
    _in_page(_fmt(math.exp(2), 3))  # 7.389
    _in_page(_fmt(math.exp(0.2), 3))  # 1.221
    _in_page(_fmt(1 / math.log(0.678 / 0.322), 3))  # 1.343
    # cross-check the closed form by simulation (sanity, not printed)
    rng = np.random.default_rng(3)
    d = rng.laplace(0, 2, 400_000) - rng.laplace(0, 2, 400_000)
    assert abs(np.mean(d < 0.5) - success(2)) < 0.003


def test_q4_randomized_response():
    eps = math.log(3)
    q = rdplib.rr_flip_probability(eps) if hasattr(rdplib, "rr_flip_probability") else 1 / (1 + math.exp(eps))
    assert q == pytest.approx(0.25)
    var = rdplib.rr_variance(0.3, 2000, eps)
    assert var == pytest.approx(4.8e-4)
    _in_page(_fmt(math.sqrt(var), 4))  # 0.0219
    _in_page(_fmt(math.sqrt(0.75 / 2000), 4))  # 0.0194
    assert float(rdplib.rr_estimate(np.r_[np.ones(43), np.zeros(57)], eps)) == pytest.approx(0.36)


def test_q6_sup_norm():
    b = 2 / 0.5
    _in_page(_fmt(math.sqrt(2) * b, 3))  # 5.657
    _in_page(_fmt(b * math.log(7 / 0.05), 2))  # 19.77
    _in_page(_fmt(1 - (1 - 0.05 / 7) ** 7, 4))  # 0.0489
    _in_page(_fmt(b * math.log(20), 2))  # 11.98
    crossover = 2 / (0.1**2 * 0.1 * 0.9)  # Q7, printed with a thousands separator
    _in_page(f"{crossover:,.1f}".replace(",", "{,}"))  # 2,222.2


def test_q8_coin_flip_is_ln4():
    d = np.arange(-30, 31)
    pmf = np.where(d == 0, 0.5, 0.5 ** (np.abs(d) + 2))
    ratio = pmf[1:] / pmf[:-1]  # P[R = d] / P[R = d - 1]
    assert math.log(ratio.max()) == pytest.approx(math.log(4))
    _in_page(_fmt(math.log(4), 3))  # 1.386


def test_q9_q10_exponential_mechanism():
    u = np.array([30, 25, 10.0])
    for scale, expected in ((0.1, "0.574"), (0.2, "0.721")):
        w = np.exp(scale * u)
        _in_page(_fmt((w / w.sum())[0], 3))
        assert _fmt((w / w.sum())[0], 3) == expected
    w = np.exp(0.1 * u)
    p = w / w.sum()
    _in_page(_fmt(p[1], 3))
    _in_page(_fmt(p[2], 3))
    w = np.exp(0.2 * u)
    p = w / w.sum()
    _in_page(_fmt(p[1], 3))
    _in_page(_fmt(p[2], 3))
    _in_page(_fmt(10 * (math.log(3) + 3), 2))  # 40.99
    _in_page(_fmt(math.exp(-3), 4))  # 0.0498

    def loss(two: bool) -> float:
        ux = np.zeros(100)
        ux2 = np.r_[-1.0, np.ones(99)]
        c = 0.5 if two else 1.0
        px = np.exp(c * ux) / np.exp(c * ux).sum()
        px2 = np.exp(c * ux2) / np.exp(c * ux2).sum()
        return float(np.log(px[0] / px2[0]))

    _in_page(_fmt(math.exp(loss(False)), 3))  # 7.325
    _in_page(_fmt(loss(False), 3))  # 1.991
    _in_page(_fmt(loss(True), 3))  # 0.994


def test_q11_hypothesis_test_and_posterior():
    _in_page(_fmt(1 - math.e * 0.05, 4))  # 0.8641
    _in_page(_fmt(math.exp(-1) * 0.95, 4))  # 0.3495
    odds = 0.1 / 0.9 * math.exp(0.5)
    _in_page(_fmt(odds / (1 + odds), 4))  # 0.1548
    _in_page(_fmt(math.log(2.25), 3))  # 0.811


def test_q13_exact_gaussian_delta():
    delta = float(rdplib.gaussian_delta(1.0, 2.0))
    closed = stats.norm.cdf(-1.75) - math.e * stats.norm.cdf(-2.25)
    assert delta == pytest.approx(closed, rel=1e-9)
    _in_page(_fmt(stats.norm.cdf(-1.75), 6))  # 0.040059
    _in_page(_fmt(stats.norm.cdf(-2.25), 6))  # 0.012224
    _in_page(_fmt(delta, 5))  # 0.00683


def test_q14_q15_gaussian_calibration_and_groups():
    classic = rdplib.gaussian_sigma(1, 0.5, 1e-5, method="classic")
    exact = rdplib.gaussian_sigma(1, 0.5, 1e-5)
    _in_page(_fmt(classic, 3))  # 9.690
    _in_page(_fmt(exact, 4))  # 7.0318
    _in_page(_fmt(classic / exact, 3))  # 1.378
    _in_page(_fmt(math.sqrt(2) * 16 / 0.5, 2))  # 45.25
    _in_page(_fmt(4 * exact, 2))  # 28.13
    eps_k, delta_k = rdplib.group_privacy(0.5, 1e-6, 3)
    assert eps_k == pytest.approx(1.5)
    _in_page(f"{delta_k / 1e-6:.3f} \\times 10^{{-6}}")  # 5.367


def test_q16_q17_thresholds():
    assert rdplib.threshold_for_delta(1e-7, 0.5) == 32
    _in_page(_fmt(1 + math.log(1 / 2e-7) / 0.5, 2))  # 31.85
    _in_page(f"{float(rdplib.threshold_delta(32, 0.5)) / 1e-8:.2f} \\times 10^{{-8}}")  # 9.28
    _in_page(f"{float(rdplib.threshold_delta(31, 0.5)) / 1e-7:.2f} \\times 10^{{-7}}")  # 1.53
    _in_page(_fmt(1 - 0.5 * math.exp(-4), 4))  # 0.9908
    _in_page(_fmt(math.log(5) / 0.5, 2))  # 3.22


def test_q18_q19_accounting():
    _in_page(_fmt(float(rdplib.gaussian_epsilon(1e-6, 20.0, math.sqrt(52))), 3))  # 1.577
    rho = 52 / 800
    _in_page(_fmt(float(rdplib.zcdp_to_dp(rho, 1e-6)), 3))  # 1.960
    assert float(rdplib.zcdp_to_dp(rho, 1e-6)) == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e6)))
    alphas = np.linspace(1.001, 200, 400_000)
    assert (rho * alphas + math.log(1e6) / (alphas - 1)).min() == pytest.approx(float(rdplib.zcdp_to_dp(rho, 1e-6)), abs=1e-6)
    _in_page(_fmt(1 + math.sqrt(math.log(1e6) / rho), 2))  # 15.58
    per_week = float(rdplib.gaussian_epsilon(1e-6 / 52, 20.0, 1.0))
    _in_page(_fmt(per_week, 4))  # 0.2321
    _in_page(_fmt(52 * per_week, 2))  # 12.07
    def adv(k):
        return 0.1 * math.sqrt(2 * k * math.log(1e6)) + k * 0.1 * (math.exp(0.1) - 1)
    assert rdplib.advanced_composition(0.1, 0.0, 100, 1e-6)[0] == pytest.approx(adv(100))
    _in_page(_fmt(adv(100), 3))  # 6.308
    _in_page(_fmt(adv(10), 3))  # 1.767
    _in_page(_fmt(2 * math.log(1e6), 1))  # 27.6
    _in_page(_fmt(math.exp(0.25) - 1, 3))  # Q20: 0.284
    _in_page(f"{(math.exp(56.25) - 1) / 1e24:.2f} \\times 10^{{24}}")  # 2.69


def test_q21_to_q24_histograms():
    n, k, eps = 1000, 20, 0.5
    taus = np.arange(1, n // (k - 1) + 1)
    bound = (k - 1) * taus / (2 * n) * (1 - np.sqrt(eps * taus / 2))
    assert taus[bound.argmax()] == 2
    _in_page(_fmt(bound[1], 5))  # 0.00556
    rng = np.random.default_rng(7)
    z = rdplib.dp_histogram(np.full(k, n // k), eps, rng=rng)  # one release: scale 2/(n eps)
    assert z.shape == (k,)
    n2, k2 = 500, 25
    _in_page(_fmt(2 * k2 / (n2 + 1), 4))  # 0.0998
    sharp = 2 * k2 * math.exp(n2 * math.log(n2) - (n2 + 1) * math.log(n2 + 1))
    _in_page(_fmt(sharp, 4))  # 0.0368
    _in_page(_fmt((501 / 500) ** 501, 4))  # 2.7210
    ns = np.arange(1, 1000)
    first = ns[2 * k2 * np.exp(ns * np.log(ns) - (ns + 1) * np.log(ns + 1)) <= 0.1][0]
    assert f"$n = {first}$" in TEXT  # 184


def test_q26_to_q29_random_dp():
    _in_page(_fmt(math.sqrt(math.log(200) / 2000), 4))  # 0.0515
    assert math.ceil(0.95 * 1000) == 950
    _in_page(_fmt((1 - 1 / 2000) ** 999, 3))  # 0.607
    _in_page(_fmt(math.e / (math.e + 49), 4))  # 0.0526
    assert 2 * 9 / 100 == pytest.approx(0.18)
    p = np.arange(1, 51) ** -2.0
    p /= p.sum()
    _in_page(_fmt(float(np.sum(p * (1 - p) ** 999)), 4))  # 0.0107


def test_q30_to_q32_local():
    central = math.sqrt(2)
    local = math.sqrt(1e6 * math.e / (math.e - 1) ** 2)
    assert local == pytest.approx(1e6 * math.sqrt(rdplib.rr_variance(0.0, 10**6, 1.0)))
    _in_page(_fmt(local, 1))  # 959.5
    assert f"{local / central:.0f}" == "678"
    _in_page(_fmt(1 / (math.e + 1), 3))  # 0.269
    N, eps, m, w, fd = 10**6, 4, 64, 1024, 10**4
    c = (1 / w) * (1 - 1 / w)
    flip = N * math.exp(eps / 2) / (math.exp(eps / 2) - 1) ** 2
    hashing = (N - fd) * c * (1 - 1 / m)
    coll = c / m * 99 * 1e8
    mse = (w / (w - 1)) ** 2 * (flip + hashing + coll)
    assert f"{flip:,.0f}".replace(",", "{,}") in TEXT  # 181,015
    _in_page(_fmt(hashing, 1))  # 950.8
    assert f"{coll:,.0f}".replace(",", "{,}") in TEXT  # 150,914
    assert f"{mse:,.0f}".replace(",", "{,}") in TEXT  # 333,532
    _in_page(_fmt(math.sqrt(mse), 1))  # 577.5


def test_q33_q34_q35_audits():
    n, k, kp, conf = 100_000, 30_330, 11_160, 1 - 0.05 / 4
    p_lo, p_hi = rdplib.clopper_pearson(k, n, conf)
    q_lo, q_hi = rdplib.clopper_pearson(kp, n, conf)
    assert p_lo == pytest.approx(stats.beta.ppf(1 - conf, k, n - k + 1))
    for value in (p_lo, p_hi, q_lo, q_hi):
        _in_page(_fmt(value, 6))
    _in_page(_fmt(math.log(p_lo / q_hi), 3))  # 0.969
    _in_page(_fmt(math.log(q_lo / p_hi), 3))  # -1.031
    _in_page(_fmt(math.log(k / kp), 4))  # 0.9998

    def power(trials: int, true_eps: float) -> float:
        ks = np.arange(trials + 1)
        lo = np.where(ks == 0, 0.0, stats.beta.ppf(1 - conf, np.maximum(ks, 1), trials - ks + 1))
        hi = np.where(ks == trials, 1.0, stats.beta.ppf(conf, ks + 1, np.maximum(trials - ks, 1)))
        with np.errstate(divide="ignore"):
            bound = np.maximum(np.log(lo[:, None] / hi[None, :]), np.log(lo[None, :] / hi[:, None]))
        flip = 1 / (1 + math.exp(true_eps))
        pk = stats.binom.pmf(ks, trials, 1 - flip)
        pkp = stats.binom.pmf(ks, trials, flip)
        return float(np.sum(pk[:, None] * pkp[None, :] * (bound > 1.0)))

    _in_page(_fmt(power(200, 1.5), 3))  # 0.770
    _in_page(_fmt(power(500, 1.5), 4))  # 0.9988
    _in_page(_fmt(power(500, 1.0), 4))  # 0.0016
    _in_page(_fmt(1 - 0.9**3, 3))  # 0.271
    _in_page(_fmt(1 - 0.05 ** (1 / 1000), 5))  # 0.00299


def test_q36_to_q38_learning():
    def amp(eps, q):
        return math.log1p(q * (math.exp(eps) - 1))
    _in_page(_fmt(amp(1, 0.01), 5))  # 0.01704
    _in_page(_fmt(amp(2, 0.05), 4))  # 0.2772
    _in_page(_fmt(1000 * amp(1, 0.01), 2))  # 17.04
    _in_page(_fmt(float(rdplib.gaussian_epsilon(1e-5, 1.0, 1.0)), 3))  # 4.377
    _in_page(_fmt(float(rdplib.gaussian_epsilon(1e-5, 0.5, 1.0)), 3))  # 9.997
    d2 = math.log1p(0.01**2 * (math.e - 1))
    assert d2 == pytest.approx(float(rdplib.subsampled_gaussian_renyi(2, 1.0, 0.01)), rel=1e-9)
    _in_page(f"{d2 / 1e-4:.3f} \\times 10^{{-4}}")  # 1.718
    _in_page(_fmt(1000 * d2, 4))  # 0.1718


# --------------------------------------------------------------------------- the course-project page
PROJECTS = ROOT / "book" / "assignments" / "projects.md"


def test_projects_page_structure():
    from tests.test_plain_render import problems_in

    text = PROJECTS.read_text(encoding="utf-8")
    assert len(re.findall(r"^## Project \d: ", text, flags=re.M)) == 3
    for milestone in ("Proposal", "Check-in", "Final report"):
        assert f"| {milestone} |" in text
    for project in re.split(r"^## Project \d: ", text, flags=re.M)[1:]:
        project = project.split("\n## ")[0]
        assert "**Deliverables.**" in project and "**What a strong project shows.**" in project
        assert re.search(r"\{doc\}`\.\./ch\d\d_", project)
    rubric = text.split("## The shared rubric", 1)[1]
    totals = [int(t) for t in re.findall(r"^\| \*\*[^*]+\*\* \((\d+)\) \|", rubric, flags=re.M)]
    assert sum(totals) == 100 and len(totals) >= 4
    for name in set(re.findall(r"\{doc\}`\.\./(ch\d\d_[a-z_]+)`", text)):
        assert (ROOT / "book" / f"{name}.ipynb").exists(), name
    assert problems_in(text) == []
