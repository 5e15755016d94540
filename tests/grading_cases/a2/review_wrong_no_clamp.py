# expect: q4<3
# %%
# Colab or Binder users: otter-grader is not installed there. Remove the "#" in front of
# %pip on the next line, run this cell once, then put the "#" back (nothing else changes).
# %pip install otter-grader
import otter
grader = otter.Notebook("a2_laplace_mechanism.ipynb")
# %%
import numpy as np
import matplotlib.pyplot as plt

# Your seed for your own experiments (the grader uses its own generators).
rng_seed = 3031
rng = np.random.default_rng(rng_seed)
# %%
# Public checks: `grader.check("qN")` runs `public_checks("qN")`, which tries your answers on the
# question's examples and prints the first property that does not hold yet, in words (nothing
# when they all hold). Run this cell once and leave it as it is. It tests properties of your
# answers only; the points come from the grader, which checks your answers again, on other
# inputs and with fresh random generators (an answer that uses rdplib scores zero).
import contextlib
import inspect
import io


def public_checks(question):
    """Print the first public property of ``question`` that your answers miss (silent if none)."""
    names, checks = PUBLIC_CHECKS[question]
    for name in names:
        if name not in globals():
            print(f"{question}: {name} is not defined yet. Run the cell that defines it, and every cell "
                  "above it, without errors (Kernel > Restart Kernel and Run All Cells).")
            return
        answer = globals()[name]
        try:
            code = inspect.getsource(answer) if inspect.isfunction(answer) else ""
        except (OSError, TypeError):
            code = ""
        if "rdplib" in str(getattr(answer, "__module__", "")) + code:
            print(f"{question}: {name} uses rdplib. Build it yourself with NumPy: an answer that calls "
                  "or imports rdplib scores zero.")
            return
    for claim, holds in checks:
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                ok = bool(holds())  # a print in your answer changes nothing
        except Exception as error:  # noqa: BLE001 - reported as a fixed message
            print(f"{question}: {claim}. Your code raised {type(error).__name__} on this check: run it "
                  "on the question's example to see the traceback.")
            return
        if not ok:
            print(f"{question}: {claim}.")
            return


def _raises_value_error(function, *args):
    try:
        function(*args)
    except ValueError:
        return True
    return False


_SHOP = [[10.0, -5.0, 300.0], [], [1.0, 2.0, 3.0, 4.0, 5.0]]  # the example of Question 2


def _q1_raises():
    return all(_raises_value_error(f, *args) for f in (sum_sensitivity, count_sum_sensitivity)
               for args in ((5.0, 1.0, 2), (0.0, 1.0, 0)))


def _q2_exact():
    release = np.asarray(release_count_and_sum(_SHOP, 0.0, 100.0, 2, 1e12, np.random.default_rng(rng_seed)),
                         dtype=float)
    return release.shape == (2,) and bool(np.allclose(release, [4.0, 13.0], atol=1e-6))


def _q2_reproducible():
    first, again = (np.asarray(release_count_and_sum(_SHOP, 0.0, 100.0, 2, 1.0, np.random.default_rng([rng_seed, 7])))
                    for _ in range(2))
    return bool(np.array_equal(first, again))


def _q2_spread():
    gen = np.random.default_rng([rng_seed, 2])
    noise = np.array([release_count_and_sum(_SHOP, 0.0, 100.0, 2, 0.5, gen) for _ in range(4000)]) - [4.0, 13.0]
    mean_abs = np.mean(np.abs(noise), axis=0)
    return bool(abs(mean_abs[0] / mean_abs[1] - 1) < 0.1 and np.all(np.abs(np.median(noise, axis=0)) < 0.1 * mean_abs)
                and abs(np.corrcoef(noise.T)[0, 1]) < 0.1)


def _q2_raises():
    return all(_raises_value_error(release_count_and_sum, _SHOP, *args, np.random.default_rng(0))
               for args in ((0.0, 100.0, 2, 0.0), (5.0, 1.0, 2, 1.0), (0.0, 100.0, 0, 1.0)))


def _q3_split():
    even = [float(e) for e in split_budget(40.0, 2.0, 20.0, 1.0)]
    more = [float(e) for e in split_budget(80.0, 2.0, 20.0, 1.0)]
    return (len(even) == 2 and bool(np.allclose(even, [0.5, 0.5])) and np.isclose(sum(more), 1.0)
            and 0.5 < more[0] < 1.0 and more[1] > 0)


def _q3_raises():
    return all(_raises_value_error(split_budget, *args) for args in ((40.0, 2.0, 0.0, 1.0), (40.0, 2.0, 20.0, 0.0),
                                                                      (-40.0, 2.0, 20.0, 1.0)))


def _q4_calls():
    seen = []

    def spy(value, sensitivity, epsilon, rng):
        seen.append((np.shape(value), float(sensitivity), float(epsilon)))
        return np.asarray(value, dtype=float) + rng.normal(0.0, sensitivity / epsilon, size=np.shape(value))

    simulate_ratio_mse(2000.0, 100.0, (50.0, 2.0), (0.6, 0.4), 500, np.random.default_rng(rng_seed), spy)
    return sorted(seen) == sorted([((500,), 50.0, 0.6), ((500,), 2.0, 0.4)])


def _q4_noise_free():
    def exact(value, sensitivity, epsilon, rng):
        return np.asarray(value, dtype=float)

    return float(simulate_ratio_mse(2000.0, 100.0, (50.0, 2.0), (0.6, 0.4), 500, np.random.default_rng(0), exact)) == 0.0


def _q4_more_budget():
    def normal(value, sensitivity, epsilon, rng):
        return np.asarray(value, dtype=float) + rng.normal(0.0, sensitivity / epsilon, size=np.shape(value))

    small, large = (float(simulate_ratio_mse(2000.0, 100.0, (50.0, 2.0), eps, 20_000,
                                             np.random.default_rng([rng_seed, 4]), normal))
                    for eps in ((0.3, 0.2), (1.2, 0.8)))
    return 0 < large < small


def _q4_reproducible():
    def normal(value, sensitivity, epsilon, rng):
        return np.asarray(value, dtype=float) + rng.normal(0.0, sensitivity / epsilon, size=np.shape(value))

    runs = [simulate_ratio_mse(2000.0, 100.0, (50.0, 2.0), (0.6, 0.4), 100, np.random.default_rng([rng_seed, 5]),
                               normal) for _ in range(2)]
    return bool(runs[0] == runs[1])


PUBLIC_CHECKS = {
    "q1": (["sum_sensitivity", "count_sum_sensitivity"], [
        ("sum_sensitivity must be the most the total can change when one customer's record is replaced "
         "(public example: amounts in [-20, 80], m = 3 gives 300)",
         lambda: bool(np.isclose(sum_sensitivity(-20.0, 80.0, 3), 300.0))),
        ("count_sum_sensitivity must be the most the pair (count, total) can change in L1 norm (public example: "
         "amounts in [-1, 1], m = 2 gives 4)", lambda: bool(np.isclose(count_sum_sensitivity(-1.0, 1.0, 2), 4.0))),
        ("the pair can move at least as far as its total alone (amounts in [0, 100], m = 3)",
         lambda: count_sum_sensitivity(0.0, 100.0, 3) >= sum_sensitivity(0.0, 100.0, 3) > 0),
        ("both functions must raise ValueError when lower > upper (try 5, 1, m = 2) or m < 1 (try m = 0)",
         _q1_raises)]),
    "q2": (["release_count_and_sum"], [
        ("release_count_and_sum must return two numbers, and with a huge epsilon the exact pair: the example "
         "[[10, -5, 300], [], [1, 2, 3, 4, 5]] in [0, 100] with m = 2 keeps 4 items whose clipped total is 13",
         _q2_exact),
        ("the same generator state must give the same release (draw every random number from rng)",
         _q2_reproducible),
        ("the two entries must get independent noise of the same scale, centred at 0 (4,000 releases of the "
         "example at epsilon 0.5)", _q2_spread),
        ("release_count_and_sum must raise ValueError when epsilon <= 0, lower > upper or m < 1", _q2_raises)]),
    "q3": (["split_budget"], [
        ("split_budget must return two budgets adding up to epsilon; (40, 2, 20, 1) is balanced and splits evenly; "
         "(80, 2, 20, 1) gives the total more than half", _q3_split),
        ("split_budget must raise ValueError when mean_guess is 0, epsilon <= 0 or a sensitivity <= 0",
         _q3_raises)]),
    "q4": (["simulate_ratio_mse"], [
        ("simulate_ratio_mse must call the mechanism it is given twice, on arrays of num_trials values, with the "
         "total's and the count's sensitivity and budget (a spy mechanism records the calls: 500 trials)",
         _q4_calls),
        ("with a mechanism that adds no noise the error must be exactly 0", _q4_noise_free),
        ("the same generator state must give the same simulated MSE (draw every random number from rng)",
         _q4_reproducible),
        ("the simulated MSE must be positive and fall when both budgets grow (a Gaussian mechanism, 20,000 trials)",
         _q4_more_budget)]),
}
# %%
def _check_bounds(lower, upper, m):
    if not lower <= upper:
        raise ValueError("lower must not exceed upper")
    if m < 1:
        raise ValueError("m must be at least 1")


def _per_customer_extremes(lower, upper, m):
    """Corners of the set of (count, total) one customer can have: no item, m at lower, m at upper."""
    return [(0, 0.0), (m, m * lower), (m, m * upper)]


def sum_sensitivity(lower, upper, m):
    """Sensitivity of the total of up to m amounts in [lower, upper] per person (replace-one-person)."""
    _check_bounds(lower, upper, m)
    totals = [total for _, total in _per_customer_extremes(float(lower), float(upper), int(m))]
    return float(max(totals) - min(totals))


def count_sum_sensitivity(lower, upper, m):
    """L1 sensitivity of the pair (number of items, total), up to m items per person."""
    _check_bounds(lower, upper, m)
    corners = _per_customer_extremes(float(lower), float(upper), int(m))
    best = 0.0
    for k1, s1 in corners:
        for k2, s2 in corners:
            best = max(best, abs(k1 - k2) + abs(s1 - s2))
    return float(best)

print(sum_sensitivity(-20.0, 80.0, 3), count_sum_sensitivity(-1.0, 1.0, 2))
# %%
grader.check("q1")
# %%
def release_count_and_sum(purchases, lower, upper, m, epsilon, rng):
    """Epsilon-DP pair (number of kept items, clipped total), at most m items per customer."""
    if not epsilon > 0:
        raise ValueError("epsilon must be positive")
    scale = count_sum_sensitivity(lower, upper, m) / epsilon
    count, total = 0, 0.0
    for record in purchases:
        kept = np.clip(np.asarray(record, dtype=float)[: int(m)], lower, upper)
        count += kept.size
        total += kept.sum()
    exact = np.array([count, total], dtype=np.float64)
    return exact + rng.laplace(0.0, scale, size=2)

shop = [[10, -5, 300], [], [1, 2, 3, 4, 5]]
print(release_count_and_sum(shop, 0.0, 100.0, 2, 1e12, rng))
# %%
grader.check("q2")
# %%
def split_budget(delta_sum, delta_count, mean_guess, epsilon):
    """The budgets (eps_sum, eps_count) that minimise the first-order variance of noisy total / noisy count."""
    if not (delta_sum > 0 and delta_count > 0 and epsilon > 0):
        raise ValueError("sensitivities and epsilon must be positive")
    if mean_guess == 0:
        raise ValueError("mean_guess must not be 0")
    # minimise a / e_s^2 + c / e_c^2 with a = delta_sum^2, c = (mean * delta_count)^2: e_s / e_c = (a / c)^(1/3)
    weight_sum = float(delta_sum) ** (2 / 3)
    weight_count = (abs(float(mean_guess)) * float(delta_count)) ** (2 / 3)
    eps_sum = float(epsilon) * weight_sum / (weight_sum + weight_count)
    return eps_sum, float(epsilon) - eps_sum

print(split_budget(200.0, 4.0, 20.0, 1.0))
# %%
grader.check("q3")
# %%
def simulate_ratio_mse(total, count, sensitivities, epsilons, num_trials, rng, mechanism):
    """Monte Carlo MSE of noisy_total / max(noisy_count, 1) around total / count."""
    delta_sum, delta_count = (float(d) for d in sensitivities)
    eps_sum, eps_count = (float(e) for e in epsilons)
    noisy_total = np.asarray(mechanism(np.full(int(num_trials), float(total)), delta_sum, eps_sum, rng), dtype=float)
    noisy_count = np.asarray(mechanism(np.full(int(num_trials), float(count)), delta_count, eps_count, rng), dtype=float)
    reports = noisy_total / noisy_count
    return float(np.mean((reports - total / count) ** 2))
# %%
grader.check("q4")
# %%
# Question 6: the computations behind the answer above
def laplace_mech(value, sensitivity, epsilon, rng):
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, sensitivity / epsilon, size=value.shape)


def first_order_var(total, count, d_sum, d_count, e_sum, e_count):
    b_sum, b_count = d_sum / e_sum, d_count / e_count
    return (2 * b_sum**2 + 2 * (total / count) ** 2 * b_count**2) / count**2


def mse_with_se(total, count, sens, eps, rng, batches=20, per_batch=10_000):
    """Simulated MSE and its standard error from independent batches."""
    runs = []
    for child in rng.spawn(batches):
        runs.append(simulate_ratio_mse(total, count, sens, eps, per_batch, child, laplace_mech))
    runs = np.array(runs)
    return runs.mean(), runs.std(ddof=1) / np.sqrt(batches)


q6_rng = np.random.default_rng([rng_seed, 6])
lower, upper, m, eps = 0.0, 50.0, 4, 1.0
total, count = 32_000.0, 1_600.0
d_sum, d_count, d_pair = sum_sensitivity(lower, upper, m), float(m), count_sum_sensitivity(lower, upper, m)
print(f"sensitivities: total {d_sum:g}, count {d_count:g}, pair {d_pair:g}")

designs = {
    "joint (Q2)": ((d_pair, d_pair), (eps, eps)),
    "even split": ((d_sum, d_count), (eps / 2, eps / 2)),
    "split_budget": ((d_sum, d_count), split_budget(d_sum, d_count, 20.0, eps)),
}
for name, (sens, epss) in designs.items():
    fo = first_order_var(total, count, *sens, *epss)
    mse, se = mse_with_se(total, count, sens, epss, q6_rng)
    print(f"{name:13s} eps = ({epss[0]:.4f}, {epss[1]:.4f})  first-order RMSE {np.sqrt(fo):.4f}  "
          f"simulated RMSE {np.sqrt(mse):.4f} ± {se / (2 * np.sqrt(mse)):.4f}")
print(f"joint = split ({d_sum / d_pair:.4f}, {d_count / d_pair:.4f}); P[noisy count < 1] = {0.5 * np.exp(-(count - 1) / d_pair):.2e}")

# the wrong guess: true average 5, same count
for name, e in [("guess 20", split_budget(d_sum, d_count, 20.0, eps)), ("best for 5", split_budget(d_sum, d_count, 5.0, eps))]:
    fo = first_order_var(5.0 * count, count, d_sum, d_count, *e)
    mse, se = mse_with_se(5.0 * count, count, (d_sum, d_count), e, q6_rng)
    print(f"true average 5, {name:10s}: eps = ({e[0]:.4f}, {e[1]:.4f})  first-order RMSE {np.sqrt(fo):.4f}  "
          f"simulated {np.sqrt(mse):.4f} ± {se / (2 * np.sqrt(mse)):.4f}")

# Q6.3: the claim, at count noise scale = count / 20
mean, b_count = 20.0, count / 20
e_count = d_count / b_count
print("\n   b_sum   first-order   simulated MSE / V ± s.e.   2nd-order prediction")
for b_sum in [1e-3, 100.0, 800.0, 1600.0, 3200.0, 12800.0]:
    e_sum = d_sum / b_sum
    fo = first_order_var(mean * count, count, d_sum, d_count, e_sum, e_count)
    mse, se = mse_with_se(mean * count, count, (d_sum, d_count), (e_sum, e_count), q6_rng, batches=10, per_batch=100_000)
    pred = 1 + (b_count / count) ** 2 * (6 * b_sum**2 + 36 * mean**2 * b_count**2) / (b_sum**2 + mean**2 * b_count**2)
    print(f"{b_sum:8g} {fo:12.4f}   {mse / fo:.4f} ± {se / fo:.4f}   {pred:.4f}")
# %%
def laplace(value, sensitivity, epsilon, rng):
    return np.asarray(value, dtype=float) + rng.laplace(0.0, sensitivity / epsilon, size=np.shape(value))


shares = np.linspace(0.2, 0.9, 15)
rmse = [np.sqrt(simulate_ratio_mse(32_000.0, 1_600.0, (200.0, 4.0), (s, 1 - s), 20_000, rng, laplace)) for s in shares]
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(shares, rmse, "o-", label="simulated RMSE")
ax.axvline(split_budget(200.0, 4.0, 20.0, 1.0)[0], linestyle=":", label="split_budget")
ax.set_xlabel("share of epsilon spent on the total")
ax.set_ylabel("RMSE of the average per item")
ax.legend()
plt.show()
# %%
grader.check_all()
