"""
Contacts that let go: a particle slides off a sphere
====================================================

A particle released near the top of a smooth sphere slides down its surface, pressed on it less and
less, and leaves it where the normal force falls to zero: for a release at rest at angle θ₀ from the
top, at the height where cos θ = (2/3) cos θ₀ (measured from the centre). It then flies freely and
bounces on the ground with restitution e = 1/2. A bilateral constraint would hold it on the sphere
for ever; declared unilateral, with a gap that opens, the contacts let go and close as the physics
says, and ``formulations.simulate_contacts`` runs the motion phase by phase.

Time budget: 30 s (runs in about 4 s on the numpy backend).
"""

# %%
# Two unilateral contacts
# -----------------------
#
# The particle moves in the vertical x-z plane, p = (x, z), v = ṗ, T = m (ẋ² + ż²) / 2, V = m g z.
# The sphere (radius R, centre at height R) and the ground are contacts that may open:
# ``unilateral=[(name, gap)]`` takes a gap g(p) that is positive where the contact is open, and makes
# the holonomic row Φ = −g, whose multiplier λ is the normal force (positive when it pushes). The
# sphere's gap (x² + (z − R)² − R²) / (2R) is the distance to the surface to first order, so λ is in
# newtons; the ground's gap is z, with the restitution as a third entry.
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

import formulations
import systems

x, z = sp.symbols("x z", real=True)
x_dot, z_dot = sp.symbols("x_dot z_dot", real=True)
m, g, R = sp.symbols("m g R", positive=True)
e = sp.Symbol("e", nonnegative=True)
P = systems.Parameter
theta0 = 0.1                                              # release angle from the top, rad
particle = systems.from_lagrangian(
    "particle_on_a_sphere", (x, z), m * (x_dot**2 + z_dot**2) / 2, m * g * z, velocities=(x_dot, z_dot),
    parameters=(P(m, 1.0, "kg", "mass"), P(g, 9.81, "m/s^2", "gravity"), P(R, 1.0, "m", "radius of the sphere"),
                P(e, 0.5, "", "restitution at the ground")),
    unilateral=[("sphere normal force", (x**2 + (z - R) ** 2 - R**2) / (2 * R)),
                ("ground normal force", z, "e")],
    default_p=(np.sin(theta0), 1.0 + np.cos(theta0)), default_v=(0.0, 0.0))   # on the sphere, at rest
print(particle.summary())

# %%
# The run
# -------
#
# Each phase runs the dependent formulation of the system that its mode leaves (here first with the
# sphere closed and the ground open, then both open), and an event ends it: the sphere's normal force
# falls to zero (it opens), or the ground's gap falls to zero (an impact, after which the particle
# bounces by Newton's law, Δż = −(1 + e) ż). Tolerances: rtol = atol = 1e-10 (the defaults);
# ``max_step`` only gives the figure more points.
run = formulations.simulate_contacts(particle, (0.0, 2.2), max_step=0.005)
print(run.message)
for event in run.events:
    print(f"t = {event.t:.6f} s: {event.kind:8s} {event.constraint}")
for mode in run.modes:
    print(f"{mode.start:.4f} .. {mode.end:.4f} s, open: {', '.join(mode.open) or 'none'}")

# %%
# Against the closed forms
# ------------------------
#
# Energy conservation on the sphere and N = 0 give the height of departure above the centre,
# R cos θ = (2/3) R cos θ₀. At each impact the vertical velocity turns and shrinks by e.
leaves = next(ev for ev in run.events if ev.kind == "opens")
p_leave, _ = leaves.before
print(f"leaves at height {p_leave[1] - 1.0:.10f} m above the centre, closed form {2 / 3 * np.cos(theta0):.10f} m")
assert abs(p_leave[1] - 1.0 - 2 / 3 * np.cos(theta0)) < 1e-8
for impact in (ev for ev in run.events if ev.kind == "impact"):
    (_, v_before), (_, v_after) = impact.before, impact.after
    print(f"impact at t = {impact.t:.4f} s: z_dot {v_before[1]:+.4f} -> {v_after[1]:+.4f} m/s")
    assert abs(v_after[1] + 0.5 * v_before[1]) < 1e-9
assert run.p[:, 1].min() > -1e-9                           # never below the ground

# %%
# Gaps, forces and events
# -----------------------
#
# Left: the path, with the sphere. Right: the gaps and the normal forces over time (the multipliers of
# open contacts are zero), with the events as vertical lines. The sphere's force falls from
# m g cos θ₀ to zero at departure; the ground's force acts only in the impulses.
t, px, pz = run.t, run.p[:, 0], run.p[:, 1]
sphere_gap = (px**2 + (pz - 1.0) ** 2 - 1.0) / 2.0
fig, (ax_path, ax_gap, ax_force) = plt.subplots(1, 3, figsize=(11.5, 3.6), layout="constrained")
angle = np.linspace(0.0, 2 * np.pi, 200)
ax_path.fill(np.cos(angle), 1.0 + np.sin(angle), color="lightgrey")
ax_path.plot(px, pz, color="tab:blue")
ax_path.plot(*p_leave, "o", color="tab:orange", label="leaves the sphere")
ax_path.axhline(0.0, color="black", linewidth=1.0)
ax_path.set_aspect("equal")
ax_path.set(xlabel="x in m", ylabel="z in m", title="path of the particle")
ax_path.legend(fontsize=7, loc="upper right")
ax_gap.plot(t, sphere_gap, label="sphere gap (x² + (z − R)² − R²) / (2R)")
ax_gap.plot(t, pz, label="ground gap z")
ax_gap.set(xlabel="t in s", ylabel="gap in m", title="gaps (positive: open)", ylim=(-0.05, 2.3))
ax_force.plot(t, run.reactions["sphere normal force"], label="sphere normal force")
ax_force.plot(t, run.reactions["ground normal force"], label="ground normal force")
ax_force.set(xlabel="t in s", ylabel="λ in N", title="normal forces")
for ax in (ax_gap, ax_force):
    for event in run.events:
        ax.axvline(event.t, color="tab:red" if event.kind == "impact" else "tab:orange", linewidth=0.8,
                   linestyle=":")
    ax.legend(fontsize=7)
plt.show()
