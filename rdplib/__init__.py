"""rdplib: the helper library of the executable book on random differential privacy.

Thin, vectorised and validated versions of what the book's chapters, assignments and
outside checks reuse: the mechanisms, the accounting (with numerical privacy-loss
distributions in :mod:`rdplib.pld`), the private histograms with the
exact L1 projection, the data-dependent scale, the count-mean sketch and the auditor.
Each chapter writes its mechanism in the open first and checks it against the
version here. Randomness is taken as ``rng=None | int | numpy.random.Generator``.
The explorers' machinery is in :mod:`rdplib.widgets` (needs the ``widgets`` extra,
ipywidgets) and the book's plot style in :mod:`rdplib.plotting`.

.. warning::
   rdplib is for teaching. Its continuous noise is NumPy floating-point noise,
   which is not exact and is vulnerable to floating-point attacks (Mironov,
   2012). Do not use it to protect real data; use a production library such as
   OpenDP instead.
"""

from .accounting import (
    basic_composition,
    group_privacy,
    threshold_delta,
    threshold_for_delta,
    thresholded_histogram,
)
from .audit import AuditResult, audit_epsilon, clopper_pearson, kolmogorov_sf, ks_two_sample
from .composition import (
    advanced_composition,
    gaussian_epsilon,
    gaussian_renyi,
    gaussian_renyi_epsilon,
    renyi_to_dp,
    subsampled_gaussian_epsilon,
    subsampled_gaussian_renyi,
    zcdp_to_dp,
)
from .datadep import quantile_scale
from .histograms import (
    dp_histogram,
    histogram_counts,
    l1_loss,
    project_to_histograms,
    rdp_condition_holds,
    rdp_histogram,
)
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
from .pld import PrivacyLossDistribution, gaussian_pld, laplace_pld, subsampled_gaussian_pld

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
    # accounting for many releases: advanced composition, Rényi DP, zCDP
    "advanced_composition",
    "gaussian_epsilon",
    "gaussian_renyi",
    "gaussian_renyi_epsilon",
    "renyi_to_dp",
    "zcdp_to_dp",
    # Poisson subsampling (Rényi DP) and privacy-loss distributions
    "subsampled_gaussian_renyi",
    "subsampled_gaussian_epsilon",
    "PrivacyLossDistribution",
    "laplace_pld",
    "gaussian_pld",
    "subsampled_gaussian_pld",
    # histograms and random differential privacy
    "histogram_counts",
    "dp_histogram",
    "rdp_histogram",
    "rdp_condition_holds",
    "project_to_histograms",
    "l1_loss",
    # data-dependent noise
    "quantile_scale",
    # local DP
    "CountMeanSketch",
    # auditing
    "audit_epsilon",
    "AuditResult",
    "clopper_pearson",
    "kolmogorov_sf",
    "ks_two_sample",
]
