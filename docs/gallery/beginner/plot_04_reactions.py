"""
Reactions: the rolling disc's contact forces
============================================

The multipliers λ of the constraints are forces when the rows are written as physical velocities.
For the rolling disc they are the ground's normal force and the two friction forces at the contact
point, in newtons. This example computes them at one state with ``formulations.reactions`` and over
a run with ``traj.reactions``, and asks whether the friction the rolling needs stays inside Coulomb's
cone (at most μ times the normal force): for a wobbling disc it does, for a disc that leans further it does not.

Time budget: 30 s (runs in about 5 s on the numpy backend).
"""

# %%
# At one state
# ------------
#
# ``formulations.reactions(system, t, p, v)`` solves Cᵀλ = f − d − M v̇ for λ once v̇ is known from
# the minimal equations (Blajer's resolved form) and names each value by its row. An upright disc
# rolling straight carries exactly its weight m g and needs no friction.
import matplotlib.pyplot as plt
import numpy as np

import formulations
import systems

disc = systems.load("rolling_disc")                     # m = 1 kg, r = 0.5 m, mu = 0.5
m, g, r = (disc.parameter_dict[name] for name in ("m", "g", "r"))
upright = formulations.reactions(disc, 0.0, np.array([0, 0, r, 0, 0, 0.0]), np.array([2.5, 0, 0, 0, 5.0, 0]))
for name, value in upright.items():
    print(f"{name:>28s}: {value:8.4f} {disc.unit_of(name)}")
assert abs(upright["contact normal force"] - m * g) < 1e-12

# %%
# Over a run
# ----------
#
# Two discs roll straight from a lean: one at 4 rad/s leaned 0.2 rad, one at 3 rad/s leaned 0.3 rad.
# Every trajectory carries the reactions at its recorded points, ``traj.reactions[name]``. The run
# also checks them against the contact the disc declares (normal force ≥ 0, friction inside the cone
# of μ = 0.5): where they leave it, its status is 2 and its message says when. Tolerances:
# rtol = atol = 1e-10.
t_eval = np.linspace(0.0, 3.0, 301)
runs = {}
for spin, lean in ((4.0, 0.2), (3.0, 0.3)):
    state = disc.family("rolling").state(disc, lean=lean, spin=spin)
    runs[spin, lean] = formulations.create("minimal", disc).simulate((0.0, 3.0), state, rtol=1e-10, atol=1e-10,
                                                                     t_eval=t_eval)
    print(f"spin {spin} rad/s, lean {lean} rad: status {runs[spin, lean].status}: {runs[spin, lean].message}")

# %%
# The resolved reactions at any recorded state agree with the run's multipliers:
wobbling = runs[4.0, 0.2]
lam = formulations.reactions(disc, wobbling.t[-1], wobbling.p[-1], wobbling.v[-1], as_dict=False)
print("largest difference from the run's multipliers:", np.max(np.abs(lam - wobbling.multipliers[-1])), "N")

# %%
# The forces and the friction cone
# --------------------------------
#
# Left: the three contact forces of the wobbling disc. The normal force oscillates about m g as the
# centre rises and falls; the lateral friction force turns the disc. Right: the friction the rolling
# needs, :math:`|F_t| / N`, against μ. Above the dashed line a real disc would slide, and the rolling
# constraints would no longer hold.
fig, (ax_forces, ax_cone) = plt.subplots(1, 2, figsize=(9.5, 3.6), layout="constrained")
for name, values in wobbling.reactions.items():
    ax_forces.plot(wobbling.t, values, label=name)
ax_forces.axhline(m * g, color="grey", linewidth=0.8, linestyle=":", label="m g")
ax_forces.set(xlabel="t in s", ylabel="force in N", title="contact forces, spin 4 rad/s, lean 0.2 rad")
ax_forces.legend(fontsize=7)
for (spin, lean), traj in runs.items():
    forces = traj.reactions
    ratio = np.hypot(forces["longitudinal friction force"], forces["lateral friction force"]) / \
        forces["contact normal force"]
    ax_cone.plot(traj.t, ratio, label=f"spin {spin:g} rad/s, lean {lean:g} rad")
ax_cone.axhline(disc.parameter_dict["mu"], color="black", linestyle="--", linewidth=1.0, label="μ = 0.5")
ax_cone.set(xlabel="t in s", ylabel="|F_t| / N", title="friction needed to roll", ylim=(0.1, 0.75))
ax_cone.legend(fontsize=7, loc="upper center", ncols=2)
plt.show()

# %%
# ``traj.contact_margins`` holds the same check as margins, :math:`N` and :math:`\mu N - |F_t|` in newtons, and
# ``traj.plot_contacts()`` draws them, shading where the contact would open or slide.
ax = runs[3.0, 0.3].plot_contacts()
plt.show()
