"""
The Whipple bicycle: eigenvalues against speed
==============================================

An uncontrolled bicycle can balance itself, but only within a window of forward speeds. This example
linearizes the catalogue's Whipple bicycle (the benchmark of Meijaard, Papadopoulos, Ruina & Schwab,
2007: rear frame with rider, front fork, two thin wheels rolling without slip) about its upright
straight motion, follows the eigenvalues as the speed grows, and locates the weave speed, above
which the oscillating weave mode is damped, and the capsize speed, above which the slow capsize
mode slowly falls over.

Time budget: 30 s (runs in about 16 s on the numpy backend).
"""

# %%
# The bicycle
# -----------
#
# Nine coordinates and velocities, two holonomic rows (both wheels touch the ground) and four
# nonholonomic ones (neither wheel slips, along or across): r = n − m − l = 3 velocity degrees of
# freedom, roll, steer and forward speed. Its parameter ``v`` is the forward speed of the default
# state, the upright straight motion. Building it from its bodies takes a few seconds.
import matplotlib.pyplot as plt
import numpy as np

import formulations
import systems

bicycle = systems.load("bicycle", v=5.0)
print(bicycle.summary())

# %%
# Linearized at 5 m/s
# -------------------
#
# ``formulations.linearize`` gives the state matrix A of the minimal formulation's independent state
# about the steady motion, with the constraints honoured. The position, heading and wheel angles are
# ignorable (they drift: zero eigenvalues, labelled), the rear wheel's rate is conserved. Four
# eigenvalues are left: the weave pair, capsize and castering. At 5 m/s all four have negative real
# parts: the bicycle is self-stable.
p, v = bicycle.default_state()
lin = formulations.linearize(bicycle, p, v)
print(lin)
print("non-trivial eigenvalues in 1/s:", np.round(lin.nontrivial, 6))

# %%
# Along the speed
# ---------------
#
# ``formulations.stability`` linearizes at each speed (a parameter of the system: each value gives
# ``bicycle.with_parameters(v=...)``), keeps the non-trivial eigenvalues and locates the speeds where
# the largest real part changes sign, to 1e-10 m/s. The exact derivatives are derived once; every
# further speed costs an evaluation.
speeds = np.linspace(0.0, 10.0, 21)
result = formulations.stability(bicycle, None, "v", speeds)
print(result)
weave, capsize = result.critical_values
print(f"weave speed   {weave:.10f} m/s (benchmark 4.292382536)")
print(f"capsize speed {capsize:.10f} m/s (benchmark 6.024262015)")
assert abs(weave - 4.292382536) < 1e-8 and abs(capsize - 6.024262015) < 1e-8

# %%
# The figure of the benchmark
# ---------------------------
#
# Real parts (filled) and imaginary parts (open) of the eigenvalues against the forward speed. Below
# the weave speed the weave pair grows; between the two speeds every real part is negative (shaded);
# above the capsize speed the capsize eigenvalue is slightly positive.
fig, ax = plt.subplots(figsize=(7.0, 4.2), layout="constrained")
formulations.plot_stability(result, ax=ax)
ax.axvspan(weave, capsize, color="tab:green", alpha=0.12, label="self-stable")
ax.set_ylim(-10.0, 10.0)
ax.set(xlabel="forward speed v in m/s", ylabel="eigenvalue in 1/s (imaginary: rad/s)",
       title="Whipple bicycle: eigenvalues of the upright straight motion")
ax.legend(fontsize=8, loc="lower right")
plt.show()
