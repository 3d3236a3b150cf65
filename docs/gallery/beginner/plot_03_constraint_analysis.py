"""
Is my constraint holonomic? Exactness and the growth vector
===========================================================

A Pfaffian constraint a(q)·dq = 0 is holonomic when it integrates to φ(q) = const. This example runs
``systems.analyze_constraints`` on the rolling disc, whose rolling rows are completely nonholonomic
(the disc can reach every configuration), and on holonomic examples: a row that is exact, one that
needs an integrating factor, and two rows that are not integrable one by one but are together. The
growth vector, the rank of the admissible directions as Lie brackets are added, tells them apart.

Time budget: 30 s (runs in about 6 s on the numpy backend).
"""

# %%
# The rolling disc
# ----------------
#
# The analysis first removes the holonomic row Φ(p) = 0 (the rim touches the ground) and tests the
# two rolling rows of C_nh in the reduced coordinates q = (x, y, ψ, θ, φ). Each row fails the
# exactness test ∂a_i/∂q_j = ∂a_j/∂q_i and the Frobenius test a ∧ da = 0, at a witness point. The
# set of rows is then judged by growing the distribution of admissible directions ker C by Lie
# brackets: 3 directions, then 4, then 5 = k, every direction of the configuration space. The rows
# are completely nonholonomic.
import matplotlib.pyplot as plt
import sympy as sp

import systems

disc = systems.analyze_constraints(systems.load("rolling_disc"))
print(disc)
assert disc.classification == "completely nonholonomic" and disc.growth_vector == (3, 4, 5)

# %%
# One row at a time
# -----------------
#
# Each row report says whether the row is exact (with its potential), or integrable after an
# integrating factor μ, and how that was decided: symbolically, or at a witness point.
for row in disc.rows:
    print(f"{row.name}: exact {row.exact} ({row.exact_how}); integrable {row.integrable} ({row.integrable_how})")

exact_report = systems.analyze_constraints(systems.load("pfaffian_exact"))
exact = exact_report.rows[0]
print("\npfaffian_exact:", exact.form, "exact:", exact.exact, " potential:", exact.potential)
factor = systems.analyze_constraints(systems.load("pfaffian_integrable")).rows[0]
print("pfaffian_integrable:", factor.form, "exact:", factor.exact, " integrable:", factor.integrable,
      " factor:", factor.integrating_factor, " integral:", factor.integral)

# %%
# Forms written directly
# ----------------------
#
# ``systems.check_pfaffian`` takes rows as lists of coefficients of dq. Each of y dx = 0 and
# x dy = 0 is not exact, but together they span {dx, dy}: x = const and y = const, two hidden
# holonomic constraints. The knife edge's row sin φ dx − cos φ dy = 0 is not integrable: one
# bracket of its two admissible directions gives the third (growth vector (2, 3)).
x, y, z, phi = sp.symbols("x y z phi", real=True)
both = systems.check_pfaffian([[y, 0, 0], [0, x, 0]], [x, y, z])
print("y dx, x dy:", [row.exact for row in both.rows], "->", both.classification,
      "with", both.hidden_holonomic, "hidden holonomic constraints; growth vector", both.growth_vector)
blade = systems.check_pfaffian([[sp.sin(phi), -sp.cos(phi), 0]], [x, y, phi])
print("knife edge:", blade.classification, blade.growth_vector)
assert both.classification == "holonomic" and blade.growth_vector == (2, 3)

# %%
# The growth vectors side by side
# -------------------------------
#
# The rank of the distribution after each level of brackets. A holonomic set stops at once below
# k (its directions are tangent to the level sets φ = const); a completely nonholonomic set grows
# to k, the dimension of the configuration space.
cases = {"rolling disc (k = 5)": disc,
         "vertical disc (k = 4)": systems.analyze_constraints(systems.load("vertical_disc")),
         "knife edge (k = 3)": blade,
         "pfaffian_exact (k = 3)": exact_report,
         "y dx, x dy (k = 3)": both}
fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
for (label, report), marker in zip(cases.items(), "osD^v"):
    ranks = report.growth_vector
    ax.plot(range(len(ranks)), ranks, marker=marker, label=f"{label}: {report.classification}")
ax.set(xlabel="bracket level", ylabel="rank of the distribution", xticks=range(3), yticks=range(1, 6),
       title="growth vectors of the admissible directions")
ax.legend(fontsize=8, loc="lower right")
plt.show()
