"""
Seeing the motion in 3D: the rolling disc's scene
=================================================

Any run of a system with shapes becomes a 3D scene: one self-contained HTML page with the bodies at
the recorded states, the contact force drawn as an arrow from the run's multipliers, a time slider,
play and pause, and a camera that turns when you drag. ``traj.show()`` returns the scene; in a
notebook, or as the last expression of a cell here, it is displayed inline. The disc below rolls
from a lean, wobbles, and curves as it goes; the path of its contact point is drawn on the ground.

Time budget: 30 s (runs in about 5 s on the numpy backend).
"""

# %%
# The run
# -------
#
# The disc starts rolling straight, leaned 0.15 rad and spinning at 5 rad/s about its axle, faster
# than the critical sqrt(g / (3 r)) = 2.56 rad/s: it stays up. ``t_eval`` records 60 states a second,
# exactly the states the scene shows (an adaptive run without it records its steps, and the scene
# fills in between). Tolerances: rtol = atol = 1e-10.
import matplotlib.pyplot as plt
import numpy as np

import formulations
import systems

disc = systems.load("rolling_disc")
state = disc.family("rolling").state(disc, lean=0.15, spin=5.0)
traj = formulations.create("minimal", disc).simulate((0.0, 4.0), state, rtol=1e-10, atol=1e-10,
                                                     t_eval=np.linspace(0.0, 4.0, 241))
print(traj)

# %%
# What the scene draws
# --------------------
#
# The shapes are the system's ``visuals``: the disc with a bar across it that turns with the spin,
# the contact point, the ground's force on the disc as an arrow (normal and friction forces from the
# multipliers λ, r long for a force m g), and the ground. ``systems.Poses`` evaluates them at any
# state; ``along`` does it for a whole run. Seen from above, the centre and the contact point trace two
# curves a lean apart.
print([visual.name for visual in disc.visuals])
poses = systems.Poses(disc).along(traj.t, traj.p, traj.multipliers)
centre, _, _ = poses["disc"]
contact, _, _ = poses["contact point"]
_, _, force_tip = poses["contact force"]
fig, (ax_top, ax_force) = plt.subplots(1, 2, figsize=(9.5, 3.6), layout="constrained")
ax_top.plot(centre[:, 0], centre[:, 1], label="centre")
ax_top.plot(contact[:, 0], contact[:, 1], label="contact point")
ax_top.set_aspect("equal", adjustable="datalim")
ax_top.set(xlabel="x in m", ylabel="y in m", title="the disc from above")
ax_top.legend(fontsize=8)
m, g, r = (disc.parameter_dict[name] for name in ("m", "g", "r"))
arrow = np.linalg.norm(force_tip - contact, axis=1) * m * g / r    # the arrow is r long for a force m g
assert np.allclose(arrow, np.linalg.norm(traj.multipliers, axis=1), rtol=1e-12)
ax_force.plot(traj.t, arrow, label="arrow length x m g / r")
ax_force.plot(traj.t, np.linalg.norm(traj.multipliers, axis=1), linestyle="--", label="|λ| in N")
ax_force.set(xlabel="t in s", ylabel="force in N", title="the ground's force on the disc")
ax_force.legend(fontsize=8)
plt.show()

# %%
# The scene
# ---------
#
# ``traj.show(trails=["contact point"])`` builds the page, with the path of the contact point drawn
# behind it; ``path="disc.html"`` would also write it to a file (``scene.save(path)`` does the same
# later), a page that opens offline in any browser. Drag to turn the camera, scroll to zoom, and play
# the motion with the slider's controls.
scene = traj.show(trails=["contact point"])
print(f"{len(scene.html) / 1e6:.2f} MB of HTML, three.js and the data included")
scene
