"""Explorer for the properties chapter: splitting a privacy budget across queries."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..accounting import basic_composition
from ..plotting.properties import plot_budget_split
from ..properties import simulate_split_rmse, split_budget, split_budget_rmse
from ._base import Explorer

__all__ = ["budget_split_summary", "budget_split_explorer"]


def budget_split_summary(
    total_epsilon: float, num_queries: int, num_trials: int = 4_000, seed: int = 0
) -> dict:
    """Per-query ε, the budget spent, and formula vs simulated RMSE for an even split.

    Examples
    --------
    >>> out = budget_split_summary(1.0, 4)
    >>> out["ε per query"], out["total ε spent"], round(out["formula RMSE per answer"], 3)
    (0.25, 1.0, 5.657)
    """
    spent, _ = basic_composition(split_budget(total_epsilon, num_queries))
    return {
        "ε per query": total_epsilon / num_queries,
        "total ε spent": spent,
        "formula RMSE per answer": split_budget_rmse(total_epsilon, num_queries),
        "simulated RMSE per answer": simulate_split_rmse(
            total_epsilon, num_queries, num_trials=num_trials, rng=seed
        ),
        "RMSE of one query alone": split_budget_rmse(total_epsilon, 1),
    }


def budget_split_explorer(seed: int = 0, num_trials: int = 4_000) -> Explorer:
    """Sliders for the total ε and the number of counting queries sharing it.

    Examples
    --------
    >>> ex = budget_split_explorer()
    >>> ex.controls["num_queries"].value = 10
    >>> round(ex.results["formula RMSE per answer"], 3)  # sqrt(2) * 10 / 1
    14.142
    """

    def compute(total_epsilon: float, num_queries: int) -> dict:
        return budget_split_summary(total_epsilon, num_queries, num_trials, seed)

    def draw(ax, results, total_epsilon, num_queries):
        grid = np.arange(1, 51)
        plot_budget_split(grid, [results["simulated RMSE per answer"]],
                          split_budget_rmse(total_epsilon, grid), ax=ax, highlight=num_queries,
                          simulated_queries=[num_queries])
        ax.set_title(f"total ε = {total_epsilon:g} shared by m queries")

    controls = {
        "total_epsilon": widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1,
                                             description="total ε"),
        "num_queries": widgets.IntSlider(value=5, min=1, max=50, step=1, description="queries m"),
    }
    return Explorer(controls, compute, draw, title="Splitting a privacy budget across queries")
