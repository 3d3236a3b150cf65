"""
Deriving the equations: the knife edge in LaTeX
===============================================

``formulations.derive`` writes out a formulation's derivation the way a lecture would, one step and
its equations at a time, with every intermediate matrix as a sympy object. This example derives the
minimal equations of the catalogue's knife edge (a blade on a slope that cannot move sideways), shows
the steps as text and as typeset mathematics, and then integrates the derived equations by hand to
check them against a run of the library.

Time budget: 30 s (runs in about 6 s on the numpy backend).
"""

# %%
# The derivation
# --------------
#
# The knife edge has p = (x, y, φ), v = ṗ (A = I), M = diag(m, m, J), and one Pfaffian row, the
# blade's sideways velocity:
#
# .. math::
#
#    \mathbf{C}_{nh}\,\mathbf{v} = \sin\varphi\,\dot x - \cos\varphi\,\dot y = 0 .
#
# The minimal formulation chooses independent velocities u, writes v = D̄ u with C_nh D̄ = 0, and
# projects the dynamics onto them: M̿ u̇ + d̿ = f̿ with M̿ = D̄ᵀ M D̄. ``seconds`` bounds the time
# spent simplifying the entries.
import html
import re

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

import formulations
import systems

knife = systems.load("knife_edge")
derivation = formulations.derive(knife, "minimal", seconds=2.0)
print([step.title for step in derivation.steps])

# %%
# As text
# -------
#
# ``derivation.text()`` is the terminal rendering: sympy's pretty printer, with a dot over every
# time derivative. ``until`` stops after a step, named by its key or number.
print(derivation.text(width=100, until="independent"))

# %%
# As typeset mathematics
# ----------------------
#
# The same steps come as LaTeX (``to_latex()``, a fragment or with ``standalone=True`` a document for
# pdflatex) and as Markdown with ``$…$`` and ``$$…$$`` mathematics (``to_markdown()``). A few lines
# turn that Markdown into HTML whose mathematics the browser typesets; shown here are the last
# steps, from the choice of independent velocities to the equations of motion.


class Typeset:
    """Markdown with $…$ and $$…$$ mathematics, displayed as HTML for MathJax."""

    def __init__(self, markdown):
        self.markdown = markdown

    def __repr__(self):
        return self.markdown

    def _repr_html_(self):
        blocks = []
        for block in self.markdown.strip().split("\n\n"):
            block = html.escape(block.strip(), quote=False)
            if block.startswith("$$"):
                blocks.append(f'<div class="math">\\[{block.strip("$")}\\]</div>')
                continue
            block = re.sub(r"\$([^$]+)\$", r"\\(\1\\)", block)
            block = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", block).replace(r"\*", "*")
            blocks.append('<p class="mathjax_process">' + re.sub(r"`([^`]+)`", r"<code>\1</code>", block) + "</p>")
        return "\n".join(blocks)


steps = derivation.to_markdown().split("\n\n**")
last = [step for step in steps if step.split(".")[0] in ("8", "10", "11")]
Typeset("\n\n".join("**" + step for step in last))

# %%
# Every named object is a sympy matrix, for example the minimal mass matrix M̿ and the LaTeX of the
# right-hand side f̿ (gravity down the slope, and the inputs F along the blade and τ about the normal):
print(derivation["M_barbar"])
print(sp.latex(derivation["f_barbar"]))

# %%
# Integrating the derived equations
# ---------------------------------
#
# The derived M̿, d̿, f̿ and D̄ are a complete ODE: q̇ = D̄ u, M̿ u̇ = f̿ − d̿. Here it is turned
# into numpy functions with ``sympy.lambdify`` and integrated by the classical Runge–Kutta method at
# a fixed step of 1 ms, and compared with the library's minimal formulation at rtol = atol = 1e-10.
# The blade starts at rest, turning at 0.5 rad/s, so that φ stays below π/2 where the choice
# u = (ẋ, φ̇) would be singular.
values = {parameter.symbol: knife.parameter_dict[parameter.name] for parameter in knife.parameters}
q = list(knife.coordinates)                          # x, y, phi (no holonomic rows: q = p)
u = [knife.velocities[knife.velocity_names.index(name)] for name in derivation.pieces["independent"]]  # x_dot, phi_dot
D_bar = sp.lambdify([q, u], derivation["D_bar"].subs(values), "numpy")
M_bb = sp.lambdify([q, u], derivation["M_barbar"].subs(values), "numpy")
rhs = sp.lambdify([q, u], (derivation["f_barbar"] - derivation["d_barbar"]).subs(values), "numpy")


def field(state):
    qs, us = state[:3], state[3:]
    return np.concatenate([D_bar(qs, us) @ us, np.linalg.solve(M_bb(qs, us), rhs(qs, us)).ravel()])


h, T = 1e-3, 2.0
t_hand = np.arange(0.0, T + h / 2, h)
y_hand = np.empty((t_hand.size, 5))
y_hand[0] = [0.0, 0.0, 0.0, 0.0, 0.5]                # x, y, phi, x_dot, phi_dot
for i in range(t_hand.size - 1):
    k1 = field(y_hand[i])
    k2 = field(y_hand[i] + h / 2 * k1)
    k3 = field(y_hand[i] + h / 2 * k2)
    k4 = field(y_hand[i] + h * k3)
    y_hand[i + 1] = y_hand[i] + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

state0 = (np.zeros(3), np.array([0.0, 0.0, 0.5]))
run = formulations.create("minimal", knife).simulate((0.0, T), state0, rtol=1e-10, atol=1e-10, t_eval=t_hand)
print("largest difference in (x, y, phi):", np.max(np.abs(run.p - y_hand[:, :3])))
assert np.max(np.abs(run.p - y_hand[:, :3])) < 1e-8

# %%
# Both give the same motion: the blade runs down the slope, turned aside by its heading.
fig, (ax_path, ax_diff) = plt.subplots(1, 2, figsize=(9.0, 3.6), layout="constrained")
ax_path.plot(run.p[:, 1], run.p[:, 0], label="formulations.create('minimal')")
ax_path.plot(y_hand[::100, 1], y_hand[::100, 0], "o", markersize=4, label="derived equations, RK4")
ax_path.invert_yaxis()
ax_path.set(xlabel="y (across the slope) in m", ylabel="x (down the slope) in m", title="knife edge on a slope")
ax_path.legend(fontsize=8)
ax_diff.semilogy(run.t[1:], np.max(np.abs(run.p - y_hand[:, :3]), axis=1)[1:])
ax_diff.set(xlabel="t in s", ylabel="max |Δp| in m or rad", title="derived equations against the library")
plt.show()
