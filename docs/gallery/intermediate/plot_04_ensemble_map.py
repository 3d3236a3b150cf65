"""
An ensemble map: which rolling discs fall?
==========================================

A disc rolling straight and upright is stable when it spins faster than sqrt(g / (3 r)), and falls
otherwise. What happens when it starts leaned? ``formulations.ensemble`` runs one configuration once
per member of a grid of initial spins and leans, and keeps a summary row per member: the largest lean,
when the lean reached 1 rad ("fallen"), and whether the contact forces stayed inside the friction
cone. The map shows the stability boundary and where a real disc, with μ = 0.5, would slide first.

Time budget: 30 s (runs in about 9 s on the numpy backend).
"""

# %%
# The members
# -----------
#
# The rolling disc declares the state family ``rolling``: rolling straight along x, leaned by
# ``lean`` (rad) and spinning about its axle at ``spin`` (rad/s), the other velocities following
# from the rolling rows C_nh v = 0. ``formulations.grid`` makes the product of the axes (the first
# name slowest): 10 spins × 6 leans = 60 members.
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

import formulations
import systems

disc = systems.load("rolling_disc")                     # r = 0.5 m, g = 9.81 m/s^2, mu = 0.5
print(disc.family("rolling").describe())
spins = np.linspace(0.5, 6.0, 10)
leans = np.linspace(0.05, 0.4, 6)
members = formulations.grid(spin=spins, lean=leans)

# %%
# Running them
# ------------
#
# Every member is an ordinary ``simulate`` call of the dependent formulation with the same options,
# here over 3 s at rtol = atol = 1e-8. ``workers=1`` runs the members in this process; by default they
# run on a pool of local processes, one per core (in a script, call it under
# ``if __name__ == "__main__":``), or on a Dask cluster with ``client=``.
ensemble = formulations.ensemble(disc, "dependent", members, (0.0, 3.0), rtol=1e-8, atol=1e-8, workers=1)
print(ensemble)
print("outcome:", ensemble.outcome)
row = ensemble.row(0)
print({name: row[name] for name in ("spin", "lean", "status", "steps", "theta max", "outcome_t")})

# %%
# Reading the table
# -----------------
#
# ``on_grid`` lays a per-member column out on the grid, (spins, leans). ``reached`` says which members
# reached the outcome (:math:`|\theta| = 1` rad), ``peak("theta")`` gives each member's largest lean, and the status
# is 2 where a run finished but its contact check failed: the friction the rolling needed left the cone
# :math:`|F_t| \le \mu N`.
fallen = ensemble.on_grid(ensemble.reached)
peak = ensemble.on_grid(ensemble.peak("theta"))
slides = ensemble.on_grid(ensemble.status) == 2
critical = np.sqrt(9.81 / (3 * 0.5))
print(f"linear threshold sqrt(g / (3 r)) = {critical:.4f} rad/s")
print(f"fallen: {fallen.sum()} of {fallen.size} members; contact would slide: {slides.sum()} members")
assert fallen[spins < 1.5].all() and not fallen[spins > 3.5].any()

# %%
# The map
# -------
#
# Left: each member coloured by its largest lean over 3 s, with the boundary where it reached 1 rad.
# Leaned a little, the disc falls below the linear threshold (dashed) and stays up above it; the
# larger the initial lean, the faster it must spin. Right: where the disc stayed up while rolling
# (green), would slide before it falls or while it wobbles (orange), and fell (red).
fig, (ax_peak, ax_class) = plt.subplots(1, 2, figsize=(11.0, 3.8), layout="constrained")
mesh = ax_peak.pcolormesh(spins, leans, peak.T, shading="nearest", cmap="viridis")
ax_peak.contour(spins, leans, fallen.T.astype(float), levels=[0.5], colors="white", linewidths=1.5)
fig.colorbar(mesh, ax=ax_peak, label="largest lean in rad")
classes = np.where(fallen, 2, np.where(slides, 1, 0))
colours = ListedColormap(["tab:green", "tab:orange", "tab:red"])
ax_class.pcolormesh(spins, leans, classes.T, shading="nearest", cmap=colours, vmin=-0.5, vmax=2.5)
for label, colour in zip(("rolls, stays up", "would slide (|F_t| > μ N)", "falls (|θ| reaches 1 rad)"),
                         ("tab:green", "tab:orange", "tab:red")):
    ax_class.plot([], [], "s", color=colour, label=label)
for ax in (ax_peak, ax_class):
    ax.axvline(critical, color="black", linestyle="--", linewidth=1.0)
    ax.set(xlabel="initial spin in rad/s", ylabel="initial lean in rad")
ax_peak.set(title="largest lean over 3 s")
ax_class.set(title="outcome and contact check")
ax_class.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
plt.show()
