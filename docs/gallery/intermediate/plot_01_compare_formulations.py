"""
Formulations side by side on the rolling disc
=============================================

The same rolling disc, from the same state, through several formulations of its equations of motion:
dependent variables with multipliers (without stabilization, with Baumgarte's, with projection),
reduced coordinates that remove the holonomic row, the minimal ODE that removes every constraint,
and the tangent-chart ODE on the constraint manifold. ``formulations.compare`` runs them all against a
tight reference run and tabulates cost, constraint drift and accuracy; a tolerance sweep gives the
work-precision diagram.

Time budget: 30 s (runs in about 10 s on the numpy backend).
"""

# %%
# One call
# --------
#
# Every configuration runs from the disc's default state (leaned 0.3 rad, spinning and turning) over 3 s at
# rtol = 1e-8 (atol the same). The reference is the dependent formulation with projection under DOP853
# at 1e-13; each row's deviation is the largest :math:`|p - p_\mathrm{ref}|`,
# :math:`|v - v_\mathrm{ref}|` on a common grid of ``samples`` = 151 points. ``sweep`` repeats every configuration at
# the looser tolerances given, for the work-precision data.
import matplotlib.pyplot as plt
import numpy as np

import formulations
import systems

disc = systems.load("rolling_disc")
configurations = ["dependent", "dependent+baumgarte", "dependent+projection", "reduced", "minimal", "manifold"]
comparison = formulations.compare(disc, configurations, (0.0, 3.0), rtol=1e-8, sweep=[1e-4, 1e-6], samples=151)
for note in comparison.reading():
    print(note)

# %%
# The table
# ---------
#
# The comparison displays itself as a table: wall time, right-hand-side evaluations, accepted
# steps, the largest constraint errors :math:`|\Phi|`, :math:`|C v|` and :math:`|C \dot v + \xi|`,
# the energy drift, and the deviations of the motion and of the reactions from the reference.
comparison

# %%
# Constraint drift over time
# --------------------------
#
# Each row's trajectory is kept (``comparison.trajectory(label)``), with its constraint errors at
# every recorded point (exact zeros are drawn on the lower edge). Without stabilization, and with
# Baumgarte's, the dependent formulation lets :math:`|\Phi|` and :math:`|C v|` drift at the level of the
# tolerance; projection returns both to round-off after every step. The reduced formulation holds
# Φ = 0 exactly through the embedding p = g(q) and the manifold formulation to round-off through its
# charts, but both integrate the nonholonomic rows as they come, so C_nh v drifts. The minimal
# formulation satisfies both kinds by construction.
floor = 1e-17
fig, (ax_pos, ax_vel) = plt.subplots(1, 2, figsize=(11.0, 3.6), layout="constrained", sharey=True)
for row in comparison.rows:
    traj = comparison.trajectory(row.label)
    errors = traj.constraint_errors
    ax_pos.semilogy(traj.t, np.maximum(errors.position, floor), label=row.label)
    ax_vel.semilogy(traj.t, np.maximum(errors.velocity, floor), label=row.label)
ax_pos.set(xlabel="t in s", ylabel="max |Φ| in m", title="position constraint error")
ax_vel.set(xlabel="t in s", ylabel="max |C v| in m/s", title="velocity constraint error")
ax_vel.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
plt.show()

# %%
# Work and precision
# ------------------
#
# At the tolerances of the sweep (1e-4, 1e-6) and of the table (1e-8), each configuration's deviation
# from the reference against the right-hand-side evaluations it needed (counted rather than timed, so
# that the figure does not depend on the machine). All of them are the same order; they differ in
# constant factors and in what they do to the constraints.
fig, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
for label in configurations:
    points = [p for p in comparison.sweep if p.label == label] + [comparison.row(label)]
    ax.loglog([p.rhs_evaluations for p in points], [p.deviation for p in points], "o-", label=label)
ax.set(xlabel="right-hand-side evaluations", ylabel="deviation from the reference (m, rad, m/s, rad/s)",
       title="rolling disc over 3 s: work against precision")
ax.legend(fontsize=7)
plt.show()
