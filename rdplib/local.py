"""Local differential privacy: the private count-mean sketch (Apple's CMS)."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_rng, check_epsilon, check_int, check_numeric_array

__all__ = ["CountMeanSketch"]

_PRIME = np.uint64(2**31 - 1)


def _item_keys(items: ArrayLike) -> np.ndarray:
    """Map items (integers or strings) to integer keys in [0, 2^31 - 1)."""
    arr = np.asarray(items)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if np.issubdtype(arr.dtype, np.integer):
        return (arr.astype(np.int64) % np.int64(_PRIME)).astype(np.uint64)
    if arr.dtype.kind in "US":
        uniques, inverse = np.unique(arr, return_inverse=True)
        # One hash per distinct item (not per user): stable across runs and machines.
        keys = np.array(
            [int.from_bytes(hashlib.blake2b(str(u).encode(), digest_size=8).digest(), "little")
             % int(_PRIME) for u in uniques],
            dtype=np.uint64,
        )
        return keys[inverse.reshape(arr.shape)]
    raise TypeError(f"items: expected integers or strings, got dtype {arr.dtype}")


class CountMeanSketch:
    """Private count-mean sketch: each user sends one ε-LDP report, the server estimates counts.

    Client: pick one of ``num_hashes`` hash functions uniformly at random,
    one-hot encode ``h_j(item)`` in a vector of length ``width``, flip every bit
    independently with probability ``1/(e^{ε/2} + 1)``, and send the vector and
    ``j``. Two one-hot vectors differ in two bits, each costing ``ε/2``, so one
    report is ε-DP. Server: debias every bit, add it to row ``j`` of an
    ``num_hashes x width`` matrix (scaled by ``num_hashes``), and estimate the
    count of item ``d`` as ``w/(w-1) * (mean_j M[j, h_j(d)] - N/w)``.

    The hash family ``((a key + b) mod p) mod width`` is drawn from ``rng`` at
    construction, so estimates are unbiased over that draw.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of one report, ``> 0``.
    num_hashes : int
        Number of hash functions ``m >= 1``.
    width : int
        Length ``w >= 2`` of each report vector.
    rng : None, int or numpy.random.Generator

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> items = rng.choice(["a", "b", "c"], size=50_000, p=[0.6, 0.3, 0.1])
    >>> cms = CountMeanSketch(epsilon=4.0, num_hashes=16, width=64, rng=rng)
    >>> cms.collect(items)
    >>> abs(cms.estimate("a") / 50_000 - 0.6) < 0.03
    True
    """

    def __init__(self, epsilon: float, num_hashes: int, width: int, rng: Any = None) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.num_hashes = check_int(num_hashes, "num_hashes", minimum=1)
        self.width = check_int(width, "width", minimum=2)
        self.rng = as_rng(rng)
        self.flip_probability = 1.0 / (math.exp(self.epsilon / 2.0) + 1.0)
        self._a = self.rng.integers(1, int(_PRIME), size=self.num_hashes, dtype=np.uint64)
        self._b = self.rng.integers(0, int(_PRIME), size=self.num_hashes, dtype=np.uint64)
        self.sketch = np.zeros((self.num_hashes, self.width))
        self.num_reports = 0

    # -- hashing -------------------------------------------------------------
    def hash(self, items: ArrayLike, hash_index: ArrayLike | None = None) -> np.ndarray:
        """Column ``h_j(item)``: for every hash ``j`` (shape ``(..., m)``) or the given ``j``."""
        keys = _item_keys(items)
        if hash_index is None:
            return (((keys[..., None] * self._a + self._b) % _PRIME) % np.uint64(self.width)).astype(np.int64)
        j = np.asarray(hash_index, dtype=np.int64)
        return (((keys * self._a[j] + self._b[j]) % _PRIME) % np.uint64(self.width)).astype(np.int64)

    # -- client ----------------------------------------------------------------
    def encode(self, items: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Privatise one item per user: returns ``(reports, hash_indices)``.

        ``reports`` has shape ``(num_users, width)`` with 0/1 entries; use
        :meth:`collect` for very many users, which never stores the reports.
        """
        keys_shape = np.shape(items)
        num_users = 1 if keys_shape == () else keys_shape[0]
        j = self.rng.integers(0, self.num_hashes, size=num_users)
        cols = self.hash(np.atleast_1d(items), j)
        onehot = np.zeros((num_users, self.width), dtype=np.int8)
        onehot[np.arange(num_users), cols] = 1
        flips = self.rng.random(onehot.shape) < self.flip_probability
        return np.where(flips, 1 - onehot, onehot).astype(np.int8), j

    # -- server ----------------------------------------------------------------
    def aggregate(self, reports: ArrayLike, hash_indices: ArrayLike) -> None:
        """Debias the reports and add them to the sketch matrix."""
        reports = check_numeric_array(reports, "reports")
        hash_indices = np.asarray(hash_indices)
        if reports.ndim != 2 or reports.shape[1] != self.width:
            raise ValueError(f"reports: must have shape (num_users, {self.width}), got {reports.shape}")
        if hash_indices.shape != (reports.shape[0],):
            raise ValueError("hash_indices: must have one entry per report")
        if np.any((hash_indices < 0) | (hash_indices >= self.num_hashes)):
            raise ValueError(f"hash_indices: every entry must lie in 0..{self.num_hashes - 1}")
        q = self.flip_probability
        debiased = (reports - q) / (1.0 - 2.0 * q)
        rows = np.zeros_like(self.sketch)
        np.add.at(rows, hash_indices.astype(np.int64), debiased)
        self.sketch += self.num_hashes * rows
        self.num_reports += reports.shape[0]

    def collect(self, items: ArrayLike) -> None:
        """Simulate every user's report and aggregate them, without storing the reports.

        For each (hash, column) cell, the number of reported ones is a sum of
        independent bits: ``Binomial(#ones, 1-q) + Binomial(#zeros, q)``. Drawing
        those two binomials gives exactly the distribution of summing the
        individual reports, in O(m w) memory instead of O(N w).
        """
        items = np.atleast_1d(np.asarray(items))
        num_users = items.shape[0]
        j = self.rng.integers(0, self.num_hashes, size=num_users)
        cols = self.hash(items, j)
        ones = np.zeros((self.num_hashes, self.width), dtype=np.int64)
        np.add.at(ones, (j, cols), 1)
        users_per_hash = np.bincount(j, minlength=self.num_hashes)[:, None]
        zeros = users_per_hash - ones
        q = self.flip_probability
        reported = self.rng.binomial(ones, 1.0 - q) + self.rng.binomial(zeros, q)
        debiased_sum = (reported - q * users_per_hash) / (1.0 - 2.0 * q)
        self.sketch += self.num_hashes * debiased_sum
        self.num_reports += num_users

    def estimate(self, items: ArrayLike) -> np.ndarray | float:
        """Unbiased estimate of how many users hold each item in ``items``."""
        cols = self.hash(items)  # (..., m)
        values = self.sketch[np.arange(self.num_hashes), cols]
        w = self.width
        est = (values.mean(axis=-1) - self.num_reports / w) * w / (w - 1)
        return float(est[0]) if np.ndim(items) == 0 else est
