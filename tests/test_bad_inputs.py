"""Table-driven test: bad inputs to the contract functions raise a helpful error.

Each row is (call, exception type, parameter named at the start of the message, a
fragment saying what is allowed). The DESIGN contract: ``ValueError`` for a value
out of range, ``TypeError`` for a value of the wrong kind, and the message names
the parameter and the allowed range.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from rdplib import (
    basic_composition,
    clipped_mean,
    dp_histogram,
    gaussian_mechanism,
    geometric_mechanism,
    group_privacy,
    histogram_counts,
    l1_loss,
    laplace_mechanism,
    project_to_histograms,
    randomized_response,
    rdp_condition_holds,
    rdp_histogram,
    rr_estimate,
    rr_variance,
    threshold_delta,
    threshold_for_delta,
    thresholded_histogram,
)

NAN, INF = math.nan, math.inf
BITS = [0, 1, 1]
V, TE = ValueError, TypeError

# (id, call, exception, parameter, allowed-range fragment or None)
CASES = [
    # --- epsilon: <= 0, NaN, inf, bool, string
    ("rr eps 0", lambda: randomized_response(BITS, 0), V, "epsilon", "> 0"),
    ("rr eps negative", lambda: randomized_response(BITS, -1.0), V, "epsilon", "> 0"),
    ("rr eps nan", lambda: randomized_response(BITS, NAN), V, "epsilon", "NaN"),
    ("rr eps inf", lambda: randomized_response(BITS, INF), V, "epsilon", "finite"),
    ("rr eps bool", lambda: randomized_response(BITS, True), TE, "epsilon", "real number"),
    ("rr eps string", lambda: randomized_response(BITS, "1.0"), TE, "epsilon", "real number"),
    ("rr eps None", lambda: randomized_response(BITS, None), TE, "epsilon", "real number"),
    ("rr eps array", lambda: randomized_response(BITS, np.array([1.0, 2.0])), TE, "epsilon", None),
    ("laplace eps negative", lambda: laplace_mechanism(1.0, 1.0, -0.5), V, "epsilon", "> 0"),
    ("geometric eps 0", lambda: geometric_mechanism(3, 1, 0.0), V, "epsilon", "> 0"),
    ("gaussian eps inf", lambda: gaussian_mechanism(0.0, 1.0, INF, 1e-5), V, "epsilon", "> 0"),
    ("clipped eps 0", lambda: clipped_mean([1.0, 2.0], 0, 5, 0), V, "epsilon", "> 0"),
    ("dp_hist eps nan", lambda: dp_histogram([1, 2], NAN), V, "epsilon", "NaN"),
    ("rdp_hist eps bool", lambda: rdp_histogram([1, 2], False, 0.5), TE, "epsilon", None),
    ("threshold_delta eps 0", lambda: threshold_delta(5, 0), V, "epsilon", "> 0"),
    ("threshold_for_delta eps inf", lambda: threshold_for_delta(1e-6, INF), V, "epsilon", "> 0"),
    ("thresholded eps negative", lambda: thresholded_histogram(["a"], -1, 5), V, "epsilon", "> 0"),
    ("group eps 0", lambda: group_privacy(0, 0, 2), V, "epsilon", "> 0"),
    ("rr_estimate eps 0", lambda: rr_estimate([0, 1], 0), V, "epsilon", "> 0"),
    ("rr_variance eps 0", lambda: rr_variance(0.5, 10, 0), V, "epsilon", "> 0"),
    # --- delta outside [0, 1) (and delta = 0 where it makes no sense)
    ("gaussian delta 0", lambda: gaussian_mechanism(0.0, 1, 0.5, 0), V, "delta", "(0, 1)"),
    ("gaussian delta 1", lambda: gaussian_mechanism(0.0, 1, 0.5, 1.0), V, "delta", "(0, 1)"),
    ("gaussian delta negative", lambda: gaussian_mechanism(0.0, 1, 0.5, -0.1), V, "delta", "(0, 1)"),
    ("gaussian delta nan", lambda: gaussian_mechanism(0.0, 1, 0.5, NAN), V, "delta", "NaN"),
    ("gaussian delta string", lambda: gaussian_mechanism(0.0, 1, 0.5, "1e-5"), TE, "delta", None),
    ("group delta 1.2", lambda: group_privacy(1, 1.2, 2), V, "delta", "[0, 1)"),
    ("group delta negative", lambda: group_privacy(1, -1e-9, 2), V, "delta", "[0, 1)"),
    ("threshold_for_delta 0", lambda: threshold_for_delta(0, 1), V, "delta", "(0, 1)"),
    ("threshold_for_delta 1", lambda: threshold_for_delta(1, 1), V, "delta", "(0, 1)"),
    ("composition delta 1", lambda: basic_composition([(1.0, 1.0)]), V, "budgets[0] delta", "[0, 1)"),
    # --- gaussian: classic calibration needs epsilon < 1; unknown method
    ("gaussian classic eps 2", lambda: gaussian_mechanism(0.0, 1, 2.0, 1e-5, method="classic"), V, "epsilon", "< 1"),
    ("gaussian method", lambda: gaussian_mechanism(0.0, 1, 0.5, 1e-5, method="x"), V, "method", "analytic"),
    # --- sensitivity <= 0
    ("laplace sens 0", lambda: laplace_mechanism(1.0, 0, 1), V, "sensitivity", "> 0"),
    ("laplace sens negative", lambda: laplace_mechanism(1.0, -1, 1), V, "sensitivity", "> 0"),
    ("laplace sens nan", lambda: laplace_mechanism(1.0, NAN, 1), V, "sensitivity", "NaN"),
    ("laplace sens string", lambda: laplace_mechanism(1.0, "1", 1), TE, "sensitivity", None),
    ("geometric sens fractional", lambda: geometric_mechanism(3, 0.5, 1), V, "sensitivity", "integer"),
    ("geometric sens 0", lambda: geometric_mechanism(3, 0, 1), V, "sensitivity", "> 0"),
    ("gaussian sens 0", lambda: gaussian_mechanism(0.0, 0, 0.5, 1e-5), V, "sensitivity", "> 0"),
    # --- values / data
    ("laplace value nan", lambda: laplace_mechanism(NAN, 1, 1), V, "value", "finite"),
    ("laplace value inf", lambda: laplace_mechanism([1.0, INF], 1, 1), V, "value", "finite"),
    ("laplace value empty", lambda: laplace_mechanism([], 1, 1), V, "value", "empty"),
    ("laplace value string", lambda: laplace_mechanism("3", 1, 1), TE, "value", "numbers"),
    ("laplace value complex", lambda: laplace_mechanism(1 + 2j, 1, 1), TE, "value", "real"),
    ("geometric value fractional", lambda: geometric_mechanism(1.5, 1, 1), V, "value", "integer"),
    ("geometric value empty", lambda: geometric_mechanism(np.array([], dtype=int), 1, 1), V, "value", "empty"),
    ("geometric value huge", lambda: geometric_mechanism(1e300, 1, 1), V, "value", "2**62"),
    ("geometric int64 huge", lambda: geometric_mechanism(np.array([2**63 - 1]), 1, 1), V, "value", "2**62"),
    ("rr bits 2", lambda: randomized_response([0, 2], 1), V, "bits", "0 or 1"),
    ("rr bits negative", lambda: randomized_response(np.array([0, -1]), 1), V, "bits", "0 or 1"),
    ("rr bits fractional", lambda: randomized_response([0.5], 1), V, "bits", "0 or 1"),
    ("rr bits nan", lambda: randomized_response([0, NAN], 1), V, "bits", "finite"),
    ("rr bits strings", lambda: randomized_response(["a"], 1), TE, "bits", "numbers"),
    ("rr_estimate empty", lambda: rr_estimate([], 1), V, "noisy_bits", "empty"),
    ("rr_estimate bits 3", lambda: rr_estimate([0, 1, 3], 1), V, "noisy_bits", "0 or 1"),
    ("rr_variance p", lambda: rr_variance(1.5, 10, 1), V, "p", "[0, 1]"),
    ("rr_variance n", lambda: rr_variance(0.5, 0, 1), V, "n", ">= 1"),
    ("rr_variance string", lambda: rr_variance("x", 10, 1), TE, "p", None),
    ("clipped x empty", lambda: clipped_mean([], 0, 1, 1), V, "x", "empty"),
    ("clipped x nan", lambda: clipped_mean([1, NAN], 0, 1, 1), V, "x", "finite"),
    ("clipped x 2-D", lambda: clipped_mean([[1, 2]], 0, 1, 1), V, "x", "one-dimensional"),
    ("clipped bounds reversed", lambda: clipped_mean([1, 2], 1, 0, 1), V, "upper", "greater than lower"),
    ("clipped bounds equal", lambda: clipped_mean([1, 2], 1, 1, 1), V, "upper", "greater than lower"),
    ("clipped upper inf", lambda: clipped_mean([1, 2], 0, INF, 1), V, "upper", "finite"),
    ("clipped lower nan", lambda: clipped_mean([1, 2], NAN, 1, 1), V, "lower", "NaN"),
    # --- composition and group privacy
    ("composition empty", lambda: basic_composition([]), V, "budgets", "at least one"),
    ("composition string", lambda: basic_composition("ab"), TE, "budgets", "pairs"),
    ("composition number", lambda: basic_composition(5), TE, "budgets", "pairs"),
    ("composition not a pair", lambda: basic_composition([(1.0,)]), TE, "budgets[0]", "pair"),
    ("composition eps 0", lambda: basic_composition([(1.0, 0), (0, 0)]), V, "budgets[1] epsilon", "> 0"),
    ("group k 0", lambda: group_privacy(1, 0, 0), V, "k", ">= 1"),
    ("group k fractional", lambda: group_privacy(1, 0, 1.5), V, "k", "integer"),
    ("group k bool", lambda: group_privacy(1, 0, True), TE, "k", "integer"),
    ("group k string", lambda: group_privacy(1, 0, "2"), TE, "k", "integer"),
    # --- thresholds
    ("threshold_delta nan", lambda: threshold_delta(NAN, 1), V, "threshold", "NaN"),
    ("threshold_delta string", lambda: threshold_delta("5", 1), TE, "threshold", "real number"),
    ("threshold_delta bool", lambda: threshold_delta(True, 1), TE, "threshold", "real number"),
    ("threshold_delta list of strings", lambda: threshold_delta(["a"], 1), TE, "threshold", None),
    ("thresholded threshold nan", lambda: thresholded_histogram(["a"], 1, NAN), V, "threshold", "NaN"),
    ("thresholded threshold inf", lambda: thresholded_histogram(["a"], 1, INF), V, "threshold", "finite"),
    ("thresholded items 2-D", lambda: thresholded_histogram([["a"]], 1, 5), V, "items", "one-dimensional"),
    # --- counts: negative, fractional, empty, zero total, wrong shape
    ("dp counts negative", lambda: dp_histogram([1, -1, 3], 1), V, "counts", "non-negative integers"),
    ("dp counts fractional", lambda: dp_histogram([1.5, 2], 1), V, "counts", "non-negative integers"),
    ("dp counts empty", lambda: dp_histogram([], 1), V, "counts", "empty"),
    ("dp counts all zero", lambda: dp_histogram([0, 0], 1), V, "counts", "at least 1"),
    ("dp counts 2-D", lambda: dp_histogram([[1, 2], [3, 4]], 1), V, "counts", "one-dimensional"),
    ("dp counts scalar", lambda: dp_histogram(5, 1), V, "counts", "1-D"),
    ("dp counts strings", lambda: dp_histogram(["a"], 1), TE, "counts", "numbers"),
    ("dp counts nan", lambda: dp_histogram([1, NAN], 1), V, "counts", "finite"),
    ("dp size 0", lambda: dp_histogram([1, 2], 1, size=0), V, "size", ">= 1"),
    ("rdp counts negative", lambda: rdp_histogram([3, -2], 1, 0.5), V, "counts", "non-negative"),
    ("rdp counts empty", lambda: rdp_histogram([], 1, 0.5), V, "counts", "empty"),
    # --- gamma outside (0, 1); 2k > gamma n with require_sparse
    ("rdp gamma 0", lambda: rdp_histogram([1, 2], 1, 0), V, "gamma", "(0, 1)"),
    ("rdp gamma 1", lambda: rdp_histogram([1, 2], 1, 1), V, "gamma", "(0, 1)"),
    ("rdp gamma 1.5", lambda: rdp_histogram([1, 2], 1, 1.5), V, "gamma", "(0, 1)"),
    ("rdp gamma nan", lambda: rdp_histogram([1, 2], 1, NAN), V, "gamma", "NaN"),
    ("rdp gamma string", lambda: rdp_histogram([1, 2], 1, "0.1"), TE, "gamma", None),
    ("rdp 2k > gamma n", lambda: rdp_histogram([5, 0, 0], 1, 0.1, require_sparse=True), V, "gamma", "2k <= gamma*n"),
    ("rdp_condition gamma", lambda: rdp_condition_holds(5, 100, 2.0), V, "gamma", "(0, 1)"),
    ("rdp_condition n", lambda: rdp_condition_holds(5, 0, 0.5), V, "n", ">= 1"),
    ("histogram_counts label", lambda: histogram_counts([0, 5], 3), V, "cells", "0..2"),
    ("histogram_counts k", lambda: histogram_counts([0], 0), V, "k", ">= 1"),
    ("histogram_counts huge label", lambda: histogram_counts(np.array([0, 10**15]), 3), V, "cells", "0..2"),
    ("histogram_counts negative", lambda: histogram_counts(np.array([0, -1]), 3), V, "cells", "0..2"),
    ("histogram_counts fractional", lambda: histogram_counts([0.5], 3), V, "cells", "integer"),
    ("histogram_counts 2-D", lambda: histogram_counts(np.zeros((2, 2), dtype=int), 3), V, "cells", "one-dimensional"),
    ("histogram_counts strings", lambda: histogram_counts(["a"], 3), TE, "cells", "numbers"),
    # --- projection and loss
    ("project z nan", lambda: project_to_histograms([0.5, NAN], 10), V, "z", "finite"),
    ("project z inf", lambda: project_to_histograms([0.5, INF], 10), V, "z", "finite"),
    ("project z empty", lambda: project_to_histograms([], 10), V, "z", "empty"),
    ("project z scalar", lambda: project_to_histograms(0.5, 10), V, "z", "dimension"),
    ("project z strings", lambda: project_to_histograms(["a", "b"], 10), TE, "z", "numbers"),
    ("project z huge", lambda: project_to_histograms([1e300, 0.0], 10), V, "z", "2**52"),
    ("project n 0", lambda: project_to_histograms([0.5, 0.5], 0), V, "n", ">= 1"),
    ("project n fractional", lambda: project_to_histograms([0.5, 0.5], 2.5), V, "n", "integer"),
    ("project n string", lambda: project_to_histograms([0.5, 0.5], "10"), TE, "n", "integer"),
    ("project n bool", lambda: project_to_histograms([0.5, 0.5], True), TE, "n", "integer"),
    ("l1 shape mismatch", lambda: l1_loss([1, 2], [1, 2, 3]), V, "a, b", "do not match"),
    ("l1 trailing mismatch", lambda: l1_loss(np.ones((3, 1)), np.ones(3)), V, "a, b", "do not match"),
    ("l1 empty", lambda: l1_loss([], [1]), V, "a", "empty"),
    ("l1 nan", lambda: l1_loss([1, NAN], [1, 2]), V, "a", "finite"),
    ("l1 scalar", lambda: l1_loss(0.5, 0.2), V, "a", "dimension"),
    # --- rng: wrong types and negative seeds
    ("rr rng string", lambda: randomized_response(BITS, 1, rng="seed"), TE, "rng", "Generator"),
    ("rr rng float", lambda: randomized_response(BITS, 1, rng=1.5), TE, "rng", "Generator"),
    ("rr rng negative", lambda: randomized_response(BITS, 1, rng=-3), V, "rng", "non-negative"),
    ("laplace rng RandomState", lambda: laplace_mechanism(0.0, 1, 1, rng=np.random.RandomState(0)), TE, "rng", "Generator"),
    ("laplace rng list", lambda: laplace_mechanism(0.0, 1, 1, rng=[1, 2]), TE, "rng", "Generator"),
    ("geometric rng bool", lambda: geometric_mechanism(0, 1, 1, rng=True), TE, "rng", "Generator"),
    ("gaussian rng float", lambda: gaussian_mechanism(0.0, 1, 0.5, 1e-5, rng=2.5), TE, "rng", "Generator"),
    ("clipped rng object", lambda: clipped_mean([1.0, 2.0], 0, 3, 1, rng=object()), TE, "rng", "Generator"),
    ("thresholded rng string", lambda: thresholded_histogram(["a"], 1, 5, rng="x"), TE, "rng", "Generator"),
    ("dp rng RandomState", lambda: dp_histogram([1, 2], 1, rng=np.random.RandomState(1)), TE, "rng", "Generator"),
    ("rdp rng string", lambda: rdp_histogram([1, 2], 1, 0.5, rng="abc"), TE, "rng", "Generator"),
]


def test_enough_cases():
    assert len(CASES) >= 40
    assert len({case[0] for case in CASES}) == len(CASES)


@pytest.mark.parametrize(("call", "exception", "parameter", "allowed"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_and_names_parameter(call, exception, parameter, allowed):
    with pytest.raises(exception, match=rf"^{re.escape(parameter)}(?!\w)") as info:
        call()
    assert type(info.value) is exception  # not a subclass such as numpy's AxisError
    if allowed is not None:
        assert allowed in str(info.value)


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, True, "1"])
def test_every_epsilon_taking_function_rejects_bad_epsilon(bad):
    calls = [
        lambda e: randomized_response(BITS, e),
        lambda e: rr_estimate(BITS, e),
        lambda e: laplace_mechanism(0.0, 1.0, e),
        lambda e: geometric_mechanism(0, 1, e),
        lambda e: gaussian_mechanism(0.0, 1.0, e, 1e-5),
        lambda e: clipped_mean([1.0], 0.0, 1.0, e),
        lambda e: group_privacy(e, 0.0, 2),
        lambda e: threshold_delta(3.0, e),
        lambda e: threshold_for_delta(1e-3, e),
        lambda e: thresholded_histogram(["a"], e, 3.0),
        lambda e: dp_histogram([1, 2], e),
        lambda e: rdp_histogram([1, 2], e, 0.5),
    ]
    for call in calls:
        with pytest.raises((ValueError, TypeError), match=r"^epsilon(?!\w)"):
            call(bad)
