"""Local differential privacy: Apple's private count-mean sketch.

In the local model every user randomises their own value before it leaves
their device, so the server never sees raw data. :class:`CountMeanSketch`
hashes each user's item to one of ``width`` buckets with one of
``num_hashes`` hash functions, one-hot encodes it, and flips every bit with
probability ``1/(e^{ε/2}+1)``; the server debiases and averages. The book's
count-mean-sketch chapter builds the same client and server in NumPy and checks them against this class.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_counts,
    check_epsilon,
    check_int,
    check_numeric_array,
)

__all__ = ["CountMeanSketch"]

def _splitmix64(keys: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser: a fast, well-mixing bijection of uint64 (wrap-around arithmetic)."""
    z = np.asarray(keys, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _item_keys(items: ArrayLike) -> np.ndarray:
    """Map items (integers or strings) to 64-bit keys (integers as themselves, strings by BLAKE2b)."""
    arr = np.asarray(items)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if np.issubdtype(arr.dtype, np.integer):
        return arr.astype(np.int64).view(np.uint64)
    if arr.dtype.kind in "US":
        uniques, inverse = np.unique(arr, return_inverse=True)
        # One hash per distinct item (not per user): stable across runs and machines.
        keys = np.array(
            [int.from_bytes(hashlib.blake2b(str(u).encode(), digest_size=8).digest(), "little")
             for u in uniques],
            dtype=np.uint64,
        )
        return keys[inverse.reshape(arr.shape)]
    raise TypeError(f"items: expected integers or strings, got dtype {arr.dtype}")


def cms_flip_probability(epsilon: float) -> float:
    """Probability ``1/(e^{ε/2} + 1)`` with which the sketch's client flips each bit.

    Examples
    --------
    >>> round(cms_flip_probability(2 * np.log(3)), 4)  # e^{ε/2} = 3
    0.25
    """
    epsilon = check_epsilon(epsilon)
    if epsilon > 1400.0:  # e^{ε/2} would overflow
        return math.exp(-epsilon / 2.0) / (1.0 + math.exp(-epsilon / 2.0))
    return 1.0 / (math.exp(epsilon / 2.0) + 1.0)


class CountMeanSketch:
    """Private count-mean sketch: each user sends one ε-LDP report, the server estimates counts.

    Client: pick one of ``num_hashes`` hash functions uniformly at random,
    one-hot encode ``h_j(item)`` in a vector of length ``width``, flip every bit
    independently with probability ``1/(e^{ε/2} + 1)``, and send the vector and
    ``j``. Two one-hot vectors differ in two bits, each costing ``ε/2``, so one
    report is ε-DP. Server: debias every bit, add it to row ``j`` of an
    ``num_hashes x width`` matrix (scaled by ``num_hashes``), and estimate the
    count of item ``d`` as ``w/(w-1) * (mean_j M[j, h_j(d)] - N/w)``.

    The hash functions (a 64-bit mixing function keyed by a random seed per
    hash, reduced modulo ``width``) are drawn from ``rng`` at construction;
    estimates are unbiased over that draw.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of one report, ``> 0``.
    num_hashes : int
        Number of hash functions ``m >= 1``.
    width : int
        Length ``w >= 2`` of each report vector.
    rng : None, int or numpy.random.Generator
        Draws the hash functions, then the clients' randomness.

    Attributes
    ----------
    sketch : numpy.ndarray
        The ``num_hashes x width`` matrix of debiased, scaled sums.
    num_reports : int
        How many reports have been aggregated.
    flip_probability : float

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> items = rng.choice(["a", "b", "c"], size=50_000, p=[0.6, 0.3, 0.1])
    >>> cms = CountMeanSketch(epsilon=4.0, num_hashes=16, width=64, rng=rng)
    >>> cms.aggregate(cms.encode(items))
    >>> abs(cms.estimate("a") / 50_000 - 0.6) < 0.03
    True
    """

    def __init__(self, epsilon: float, num_hashes: int, width: int, rng: Any = None) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.num_hashes = check_int(num_hashes, "num_hashes", minimum=1)
        self.width = check_int(width, "width", minimum=2)
        if self.width > 2**20:
            raise ValueError(f"width: must be an integer in 2..{2**20}, got {self.width}")
        self.rng = as_rng(rng)
        self.flip_probability = cms_flip_probability(self.epsilon)
        # One random 64-bit seed per hash function; h_j(x) = splitmix64(key(x) XOR seed_j) mod w.
        self._seeds = self.rng.integers(0, 2**63, size=self.num_hashes, dtype=np.uint64)
        self.sketch = np.zeros((self.num_hashes, self.width))
        self.num_reports = 0

    def __repr__(self) -> str:
        return (f"CountMeanSketch(epsilon={self.epsilon:g}, num_hashes={self.num_hashes}, "
                f"width={self.width}, num_reports={self.num_reports})")

    # -- hashing -------------------------------------------------------------
    def hash(self, items: ArrayLike, hash_index: ArrayLike | None = None) -> np.ndarray:
        """Column ``h_j(item)``: for every hash ``j`` (shape ``(..., m)``) or the given ``j``."""
        keys = _item_keys(items)
        if hash_index is None:
            mixed = _splitmix64(keys[..., None] ^ self._seeds)
        else:
            j = self._check_hash_index(hash_index)
            mixed = _splitmix64(keys ^ self._seeds[j])
        return (mixed % np.uint64(self.width)).astype(np.int64)

    def _check_hash_index(self, hash_index: ArrayLike) -> np.ndarray:
        j = check_numeric_array(hash_index, "hash_index", allow_empty=True)
        if np.any(j != np.round(j)) or np.any((j < 0) | (j >= self.num_hashes)):
            raise ValueError(f"hash_index: every entry must be an integer in 0..{self.num_hashes - 1}")
        return j.astype(np.int64)

    # -- client ----------------------------------------------------------------
    def encode(self, item: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Privatise ``item`` (one item, or an array with one item per user).

        Returns ``(reports, hash_indices)``: ``reports`` has shape
        ``(num_users, width)`` with 0/1 entries and ``hash_indices`` the hash each
        user picked. The pair is what the users send; pass it to
        :meth:`aggregate`. For very many users, :meth:`collect_counts` draws
        the aggregate directly from the item counts.
        """
        keys_shape = np.shape(item)
        num_users = 1 if keys_shape == () else keys_shape[0]
        j = self.rng.integers(0, self.num_hashes, size=num_users)
        cols = self.hash(np.atleast_1d(item), j)
        onehot = np.zeros((num_users, self.width), dtype=np.int8)
        onehot[np.arange(num_users), cols] = 1
        flips = self.rng.random(onehot.shape) < self.flip_probability
        return np.where(flips, 1 - onehot, onehot).astype(np.int8), j

    # -- server ----------------------------------------------------------------
    def aggregate(self, reports: Any, hash_indices: ArrayLike | None = None) -> None:
        """Debias the reports and add them to the sketch matrix.

        ``reports`` is either the ``(reports, hash_indices)`` pair returned by
        :meth:`encode`, or the report vectors with ``hash_indices`` given
        separately.
        """
        if hash_indices is None:
            if not (isinstance(reports, tuple) and len(reports) == 2):
                raise TypeError(
                    "reports: expected the (reports, hash_indices) pair from encode(), "
                    "or pass hash_indices"
                )
            reports, hash_indices = reports
        reports = check_numeric_array(reports, "reports")
        if reports.ndim != 2 or reports.shape[1] != self.width:
            raise ValueError(f"reports: must have shape (num_users, {self.width}), got {reports.shape}")
        if not np.all((reports == 0) | (reports == 1)):
            raise ValueError("reports: every entry must be 0 or 1")
        hash_indices = self._check_hash_index(hash_indices)
        if hash_indices.shape != (reports.shape[0],):
            raise ValueError("hash_indices: must have one entry per report")
        q = self.flip_probability
        debiased = (reports - q) / (1.0 - 2.0 * q)
        rows = np.zeros_like(self.sketch)
        np.add.at(rows, hash_indices, debiased)
        self.sketch += self.num_hashes * rows
        self.num_reports += reports.shape[0]

    def _add_cell_counts(self, ones: np.ndarray, users_per_hash: np.ndarray) -> None:
        """Draw the reported ones of every cell from its true ones and aggregate."""
        zeros = users_per_hash[:, None] - ones
        q = self.flip_probability
        reported = self.rng.binomial(ones, 1.0 - q) + self.rng.binomial(zeros, q)
        debiased_sum = (reported - q * users_per_hash[:, None]) / (1.0 - 2.0 * q)
        self.sketch += self.num_hashes * debiased_sum
        self.num_reports += int(users_per_hash.sum())

    def collect_counts(self, counts: ArrayLike, items: ArrayLike | None = None) -> None:
        """Simulate and aggregate the reports of a population given as a histogram.

        ``counts[i]`` users hold ``items[i]`` (``items`` defaults to
        ``0, 1, ..., len(counts) - 1``). Each user's hash index is uniform, so
        the users of one item split over the hashes multinomially. For each
        (hash, column) cell the number of reported ones is then exactly
        ``Binomial(#ones, 1-q) + Binomial(#zeros, q)``: the same distribution
        as :meth:`encode` followed by :meth:`aggregate`, at a cost that depends
        on the number of distinct items, not of users.

        Examples
        --------
        >>> cms = CountMeanSketch(4.0, num_hashes=8, width=1024, rng=1)
        >>> cms.collect_counts([600_000, 300_000, 100_000])
        >>> np.round(cms.estimate([0, 1, 2]) / 1e6, 2)
        array([0.6, 0.3, 0.1])
        """
        counts = check_counts(counts, "counts")
        if counts.ndim != 1:
            raise ValueError(f"counts: must be 1-D, got shape {counts.shape}")
        items = np.arange(counts.size) if items is None else np.asarray(items)
        if items.shape != counts.shape:
            raise ValueError(f"items: must have the shape of counts {counts.shape}, got {items.shape}")
        per_hash = self.rng.multinomial(counts, np.full(self.num_hashes, 1.0 / self.num_hashes))
        cols = self.hash(items)  # (K, m)
        rows = np.broadcast_to(np.arange(self.num_hashes), cols.shape)
        cells = self.num_hashes * self.width
        ones = np.bincount((rows * self.width + cols).ravel(), weights=per_hash.ravel(),
                           minlength=cells).astype(np.int64).reshape(self.num_hashes, self.width)
        self._add_cell_counts(ones, per_hash.sum(axis=0))

    def estimate(self, item: ArrayLike) -> np.ndarray | float:
        """Estimate how many users hold ``item`` (a float, or an array for an array).

        Unbiased over the users' coins **and** the draw of the hash functions;
        for the hash functions of this sketch, each item carries a fixed
        collision bias ``w/(w-1) * sum_{d' != d} f_{d'} (c_{d'}(d) - 1/w)``,
        where ``c_{d'}(d)`` is the share of hashes under which ``d'`` collides
        with ``d``.
        """
        cols = self.hash(item)  # (..., m)
        values = self.sketch[np.arange(self.num_hashes), cols]
        w = self.width
        est = (values.mean(axis=-1) - self.num_reports / w) * w / (w - 1)
        return float(est[0]) if np.ndim(item) == 0 else est


# ======================================================================================
