"""rdplib: the helper library of the executable book on random differential privacy.

Thin, vectorised and validated implementations of the mechanisms the book
teaches. Randomness is taken as ``rng=None | int | numpy.random.Generator``.

.. warning::
   rdplib is for teaching. Its continuous noise is NumPy floating-point noise,
   which is not exact and is vulnerable to floating-point attacks (Mironov,
   2012). Do not use it to protect real data; use a production library such as
   OpenDP instead.
"""

from . import (
    accuracy,
    attacks,
    audit,
    datadep,
    discrete,
    local,
    properties,
    rdp,
    sensitivity,
    thresholding,
)
from .accounting import (
    basic_composition,
    group_privacy,
    threshold_delta,
    threshold_for_delta,
    thresholded_histogram,
)
from .accuracy import *  # noqa: F403
from .attacks import *  # noqa: F403
from .audit import *  # noqa: F403
from .audit import AuditResult, audit_epsilon, clopper_pearson
from .datadep import *  # noqa: F403
from .datadep import laplace_with_scale, pairwise_h_values, quantile_scale
from .discrete import *  # noqa: F403
from .histograms import (
    dp_histogram,
    histogram_counts,
    l1_loss,
    project_to_histograms,
    rdp_condition_holds,
    rdp_histogram,
)
from .local import *  # noqa: F403
from .local import CountMeanSketch
from .mechanisms import (
    clipped_mean,
    gaussian_delta,
    gaussian_mechanism,
    gaussian_sigma,
    geometric_mechanism,
    laplace_mechanism,
    randomized_response,
    rr_estimate,
    rr_flip_probability,
    rr_variance,
)
from .properties import *  # noqa: F403
from .rdp import *  # noqa: F403
from .sensitivity import *  # noqa: F403
from .thresholding import *  # noqa: F403

__version__ = "0.1.0"

__all__ = [
    # mechanisms
    "randomized_response",
    "rr_estimate",
    "rr_flip_probability",
    "rr_variance",
    "laplace_mechanism",
    "geometric_mechanism",
    "gaussian_mechanism",
    "gaussian_sigma",
    "gaussian_delta",
    "clipped_mean",
    # accounting
    "basic_composition",
    "group_privacy",
    "threshold_delta",
    "threshold_for_delta",
    "thresholded_histogram",
    # histograms and random differential privacy
    "histogram_counts",
    "dp_histogram",
    "rdp_histogram",
    "rdp_condition_holds",
    "project_to_histograms",
    "l1_loss",
    # data-dependent noise
    "quantile_scale",
    "pairwise_h_values",
    "laplace_with_scale",
    # local DP
    "CountMeanSketch",
    # auditing
    "audit_epsilon",
    "AuditResult",
    "clopper_pearson",
]

# Chapter helper modules define their own __all__; re-export those names too.
for _module in (
    accuracy, attacks, audit, datadep, discrete, local, properties, rdp, sensitivity, thresholding
):
    __all__ += [name for name in _module.__all__ if name not in __all__]
del _module
