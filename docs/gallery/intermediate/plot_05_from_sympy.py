"""
A sympy model: the large-amplitude pendulum
===========================================

A model written with ``sympy.physics.mechanics`` comes into pfaff with ``systems.from_sympy`` and
then runs through every formulation. Here a pendulum is written by Kane's method, imported, and swung
at growing amplitudes. Its period grows with the amplitude θ₀ as T = 4 sqrt(r / g) K(sin(θ₀ / 2)),
K the complete elliptic integral of the first kind, from 2π sqrt(r / g) for small swings towards
infinity as θ₀ approaches π; the runs find it to the integration tolerance.

Time budget: 30 s (runs in about 6 s on the numpy backend).
"""

# %%
# Kane's method in sympy
# ----------------------
#
# One generalized coordinate q (the angle from the downward vertical), one generalized speed u with
# the kinematic equation q̇ = u, a particle of mass m at distance r from the pivot, and gravity.
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
import sympy.physics.mechanics as me

import formulations
import systems

q, u = me.dynamicsymbols("q u")
m, r, g = sp.symbols("m r g", positive=True)
N, O = me.ReferenceFrame("N"), me.Point("O")
O.set_vel(N, 0)
bob = O.locatenew("bob", r * (sp.sin(q) * N.x - sp.cos(q) * N.y))
bob.set_vel(N, r * u * (sp.cos(q) * N.x + sp.sin(q) * N.y))
kane = me.KanesMethod(N, [q], [u], [q.diff() - u], bodies=[me.Particle("bob", bob, m)],
                      forcelist=[(bob, -m * g * N.y)])
kane.kanes_equations()

# %%
# The import
# ----------
#
# ``systems.from_sympy`` reads the coordinates as p, the speeds as v with ṗ = A(p) v from the
# kinematic equations, and forms M v̇ + d = f from the bodies and loads. Every other free symbol is a
# parameter whose value must be given. A ``KanesMethod`` carries no potential energy; passing one (in
# the model's symbols) gives the runs their energy column.
pendulum = systems.from_sympy(kane, {"m": 2.0, "r": 0.3, "g": 9.81}, name="kane_pendulum",
                              potential=-m * g * r * sp.cos(q))
print(pendulum.summary())
print("M =", pendulum.M, "  f =", pendulum.f.T)

# %%
# Half a swing, to an event
# -------------------------
#
# Released from rest at θ₀ > 0 the pendulum swings back; u returns to zero from below at the other
# end, θ = −θ₀, after half a period. A terminal ``formulations.Event`` on u with direction +1 stops
# the run there, so the run measures the period as 2 t_event. Tolerances: rtol = atol = 1e-11.


def elliptic_k(k):
    """K(k) by the arithmetic-geometric mean: K = π / (2 AGM(1, sqrt(1 - k²)))."""
    a, b = 1.0, np.sqrt(1.0 - k * k)
    while abs(a - b) > 1e-15 * a:
        a, b = (a + b) / 2, np.sqrt(a * b)
    return np.pi / (2 * a)


T0 = 2 * np.pi * np.sqrt(0.3 / 9.81)                   # the small-swing period
form = formulations.create("minimal", pendulum)
turn_back = formulations.Event(lambda t, p, v: v[0], terminal=True, direction=+1, name="turns back")
amplitudes = np.array([0.2, 0.8, 1.4, 2.0, 2.5, 2.9, 3.05])
periods, swings = [], {}
for theta0 in amplitudes:
    run = form.simulate((0.0, 10 * T0), ([theta0], [0.0]), rtol=1e-11, atol=1e-11, events=[turn_back],
                        max_step=T0 / 100)
    periods.append(2 * run.t[-1])
    swings[theta0] = run
exact = np.array([4 * np.sqrt(0.3 / 9.81) * elliptic_k(np.sin(a / 2)) for a in amplitudes])
for theta0, T, T_exact in zip(amplitudes, periods, exact):
    print(f"theta0 = {theta0:4.2f} rad: period {T:.9f} s, closed form {T_exact:.9f} s, "
          f"end angle {swings[theta0].p[-1, 0]:+.6f} rad")
assert np.allclose(periods, exact, rtol=1e-8)

# %%
# The figure
# ----------
#
# Left: half swings in time scaled by the small-swing period T₀; the larger the amplitude, the longer
# the pendulum lingers near the top. Right: the period against the amplitude, simulated (dots) and in
# closed form (line).
fig, (ax_swing, ax_period) = plt.subplots(1, 2, figsize=(9.5, 3.6), layout="constrained")
for theta0 in amplitudes[[0, 3, 5, 6]]:
    run = swings[theta0]
    ax_swing.plot(run.t / T0, run.p[:, 0], label=f"θ₀ = {theta0:g} rad")
ax_swing.set(xlabel="t / T₀", ylabel="angle q in rad", title="half a swing, from rest")
ax_swing.legend(fontsize=7)
grid = np.linspace(0.01, 3.1, 200)
ax_period.plot(grid, [4 * np.sqrt(0.3 / 9.81) * elliptic_k(np.sin(a / 2)) / T0 for a in grid],
               label="4 sqrt(r/g) K(sin(θ₀/2)) / T₀")
ax_period.plot(amplitudes, np.array(periods) / T0, "o", label="simulated")
ax_period.set(xlabel="amplitude θ₀ in rad", ylabel="period / T₀", title="period of the pendulum")
ax_period.legend(fontsize=7)
plt.show()
