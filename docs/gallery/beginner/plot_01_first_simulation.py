"""
A first simulation: the rolling disc
====================================

Load the rolling disc from the catalogue, read its description, simulate it and plot a coordinate.
The disc rolls without slipping on a horizontal plane: one holonomic constraint keeps its rim on the
ground and two nonholonomic ones forbid slip, so of its six velocities only three are free. Started
leaned and spinning fast enough, it does not fall: it wobbles about a lean and rolls on a curved path,
or, started just right, turns on a circle at a constant lean.

Time budget: 30 s (runs in about 5 s on the numpy backend).
"""

# %%
# The catalogue and one of its systems
# ------------------------------------
#
# ``systems.names()`` lists the catalogue; ``systems.load`` builds a system, and keyword arguments
# override its parameters. The summary gives the coordinates p, the velocities v (here the centre's
# velocity and the angular velocity in the lean frame, so ṗ = A(p) v with A ≠ I) and the constraint
# rows: the holonomic row Φ(p) = 0 and the rows of C_nh(p) v = 0, each named by the force it carries.
import matplotlib.pyplot as plt
import numpy as np

import formulations
import systems

print(systems.names())
disc = systems.load("rolling_disc", r=0.5)
print(disc.summary())
print(disc.parameter_dict)

# %%
# A consistent initial state
# --------------------------
#
# Every run starts from a state (p, v) that satisfies Φ(p) = 0 and C(p) v = 0. The default state has
# the disc leaned 0.3 rad, spinning at 8.3 rad/s about its axle and turning. The system also declares
# state families: ``turning`` gives the steady turn on a circle at a lean and a yaw rate (the spin
# follows from the balance of moments), here at the same lean.
p_default, v_default = disc.default_state()
p_turn, v_turn = disc.family("turning").state(disc, lean=0.3, yaw_rate=-1.0)
for name, (p, v) in {"default": (p_default, v_default), "steady turn": (p_turn, v_turn)}.items():
    Phi, Cv = disc.residuals(p, v)
    print(f"{name:18s} p = {np.round(p, 3)}, v = {np.round(v, 3)}, "
          f"max |Phi| = {np.max(np.abs(Phi)):.1e}, max |C v| = {np.max(np.abs(Cv)):.1e}")

# %%
# Simulating
# ----------
#
# ``formulations.create`` chooses how the equations of motion are written; ``"minimal"`` removes
# both kinds of constraints and integrates the ODE in q and the independent velocities u. We use
# rtol = atol = 1e-10. Every formulation returns a trajectory in the dependent variables p and v.
t_eval = np.linspace(0.0, 4.0, 401)
form = formulations.create("minimal", disc)
wobbling = form.simulate((0.0, 4.0), (p_default, v_default), rtol=1e-10, atol=1e-10, t_eval=t_eval)
turning = form.simulate((0.0, 4.0), (p_turn, v_turn), rtol=1e-10, atol=1e-10, t_eval=t_eval)
print(wobbling)
print("steps:", wobbling.stats.steps, " energy drift:", f"{wobbling.energy_drift:.1e} J")
print("largest constraint errors:", wobbling.constraint_errors.max())

# %%
# Plotting a coordinate
# ---------------------
#
# ``traj.p`` holds the coordinates over ``traj.t``, one column per name of
# ``disc.coordinate_names``. From the default state the lean θ oscillates between 0.3 and 0.49 rad:
# the disc spins fast enough to stay up, but its turning rate does not balance its lean. In the steady
# turn the lean stays at 0.3 rad and the centre runs round a circle. The centre's path (x, y) seen
# from above shows how the lean steers the disc.
i_theta = disc.coordinate_names.index("theta")
fig, (ax_lean, ax_path) = plt.subplots(1, 2, figsize=(9.0, 3.6), layout="constrained")
for traj, label in ((wobbling, "default state"), (turning, "steady turn, lean 0.3 rad")):
    ax_lean.plot(traj.t, traj.p[:, i_theta], label=label)
    ax_path.plot(traj.p[:, 0], traj.p[:, 1], label=label)
ax_lean.set(xlabel="t in s", ylabel="lean θ in rad", title="lean of the rolling disc")
ax_lean.set_ylim(0.25, 0.6)
ax_lean.legend(fontsize=8, loc="upper right")
ax_path.set(xlabel="x in m", ylabel="y in m", title="path of the centre, from above")
ax_path.set_aspect("equal", adjustable="datalim")
plt.show()

# %%
# The trajectory also draws its own diagnostics: ``traj.plot()`` shows the constraint errors
# :math:`|\Phi|` and :math:`|C v|` and the energy error over time on a log scale.
ax = wobbling.plot()
plt.show()
