"""
Optimal control: parking a knife edge sideways
==============================================

A blade on a slope can only move along itself, yet it can reach any position and heading (its
constraint is completely nonholonomic). Which force F along the blade and steering torque τ move it
1 m sideways in 2 s, at rest at both ends, with the least effort ∫ (F² + τ²) dt?
``formulations.optimal_control`` transcribes the minimal formulation's equations by direct
collocation (Hermite–Simpson) and solves the NLP with IPOPT. The optimum turns the blade, pushes it forward,
turns it back and pushes it again: the parallel-parking manoeuvre.

Time budget: 30 s (runs in about 7 s on the numpy backend).
"""

# %%
# The problem
# -----------
#
# The catalogue's knife edge has p = (x, y, φ), x pointing down a slope of 0.3 rad, and the inputs F
# and τ as parameters of its forces f. Initial and final conditions name coordinates and velocities;
# the heading is bounded to :math:`|\varphi| \le 1.2` rad along the path, which keeps the minimal formulation's
# independent velocities u = (ẋ, φ̇) regular (they are singular where the blade points across the
# slope). The mesh has 40 intervals.
import matplotlib.pyplot as plt
import numpy as np

import formulations
import systems

knife = systems.load("knife_edge")
print(knife.summary())
rest = {"x": 0.0, "y": 0.0, "phi": 0.0, "x_dot": 0.0, "y_dot": 0.0, "phi_dot": 0.0}
parking = formulations.optimal_control(
    knife, "minimal", (0.0, 2.0),
    initial=rest, final=rest | {"y": 1.0},      # 1 m across the slope, at rest at both ends
    inputs=["F", "tau"],                        # force along the blade (N), torque about the normal (N m)
    cost="effort",                              # the integral of F^2 + tau^2
    path={"phi": (-1.2, 1.2)},
    nodes=40, scheme="hermite-simpson")
print(parking)

# %%
# The checks
# ----------
#
# IPOPT converged, the collocation defects and the constraint residuals are at round-off, and the
# optimal inputs, applied open loop by ``simulate`` at rtol = 1e-10, reach the final conditions to a
# few 1e-5: the miss the discretization leaves.
miss = parking.resimulation
print("re-simulated with", miss.formulation, "- largest miss", f"{miss.largest_miss:.1e}", "of a 1 m move")
assert parking.success and abs(parking.state("y")[-1] - 1.0) < 1e-9 and miss.largest_miss < 1e-3

# %%
# The manoeuvre
# -------------
#
# Left: the blade's contact point seen from above at the collocation points, coloured by time. It
# moves along itself only, so where it must change direction it stops, and the path has a cusp: the
# blade turns in place there. Right: the heading against its bound, and the optimal inputs at the collocation
# points.
t = parking.t
x, y, phi = (parking.state(name) for name in ("x", "y", "phi"))
fig, (ax_path, ax_heading, ax_inputs) = plt.subplots(1, 3, figsize=(11.0, 3.6), layout="constrained")
ax_path.plot(y, x, color="lightgrey", zorder=1)
dots = ax_path.scatter(y, x, c=t, s=12, cmap="viridis", zorder=2)
fig.colorbar(dots, ax=ax_path, label="t in s")
ax_path.invert_yaxis()
ax_path.set_aspect("equal", adjustable="datalim")
ax_path.set(xlabel="y (across the slope) in m", ylabel="x (down the slope) in m", title="path of the blade")
ax_heading.plot(t, phi)
ax_heading.axhline(1.2, color="black", linestyle="--", linewidth=0.8)
ax_heading.axhline(-1.2, color="black", linestyle="--", linewidth=0.8)
ax_heading.set(xlabel="t in s", ylabel="heading φ in rad", title="heading and its bound")
ax_inputs.plot(t, parking.input("F"), label="F in N")
ax_inputs.plot(t, parking.input("tau"), label="τ in N m")
ax_inputs.set(xlabel="t in s", ylabel="input", title=f"optimal inputs (cost {parking.cost:.3f})")
ax_inputs.legend(fontsize=8)
plt.show()

# %%
# Solved in the dependent formulation instead (``"dependent"``, with the multiplier of the blade row
# among the unknowns), the same problem reaches the same optimum to within the discretization error.
# ``parking.plot()`` draws the coordinates, velocities and inputs of a solution in one figure.
fig = parking.plot()
plt.show()
