"""Lagrange's equations with multipliers, Maggi's equations and Kane's equations, each from the
kinetic energy T(q, q'), the potential V(q) and the generalized forces: Lagrange's expressions
d/dt dL/dq' - dL/dq with multipliers for the rows, projected onto the admissible velocities for
Maggi (independent velocities q'_i) and Kane (generalized speeds, any r independent combinations).

References: Lagrange, Mecanique analytique (1788); G. A. Maggi, Principii della teoria matematica
del movimento dei corpi (1896), see Neimark & Fufaev, Dynamics of Nonholonomic Systems (1972), ch. III;
T. R. Kane & D. A. Levinson, Dynamics: Theory and Applications (1985).
"""
from __future__ import annotations

import sympy as sp

from .. import transcript as tr
from ..steps import Step
from .mechanics import MethodEquations, independent_speeds, speeds, velocity_map

LAM_NH = r"\boldsymbol{\lambda}_{nh}"
RESIDUAL = " Below, $\\mathbf{r}$ is each left side minus its right side."


def lagrange_expressions(mech, simp, L=None):
    """(momenta dL/dq', Lagrange's expressions d/dt dL/dq' - dL/dq) of L (default T - V), q'' as ``mech.qdd``."""
    L = mech.T - mech.V if L is None else L
    momenta = sp.Matrix([L]).jacobian(mech.qd).T
    E = mech.d_dt(momenta) - sp.Matrix([L]).jacobian(mech.q).T
    return simp(momenta), simp(E)


def opening_steps(mech):
    """The steps every method starts with: the angles for Euler parameters where the system has them,
    the energies, and the rows in q' where there are rows."""
    angles = [angles_step(mech)] if mech.system.unit_norm_blocks else []
    return angles + [energy_step(mech)] + ([rows_step(mech)] if mech.l else [])


def angles_step(mech):
    """Euler parameters written in yaw, pitch and roll (methods.angles)."""
    system = mech.system
    e = [i for block in system.unit_norm_blocks for i in block]
    return Step("angles", "Angles for the Euler parameters",
                "Euler parameters are not generalized coordinates: four of them describe an orientation, held to "
                "unit norm. The methods write each orientation in yaw, pitch and roll, "
                "$\\mathbf{R} = \\mathbf{R}_z(\\psi)\\mathbf{R}_y(\\theta)\\mathbf{R}_x(\\phi)$, a chart "
                "of every orientation but those with pitch $\\pm 90^\\circ$; the velocities keep their meaning, "
                "$\\mathbf{v} = \\mathbf{D}\\dot{\\mathbf{q}}$ with $\\mathbf{D} = (\\mathbf{A}^{T}\\mathbf{A})^{-1}"
                "\\mathbf{A}^{T}\\partial\\mathbf{g}/\\partial\\mathbf{q}$.",
                (r"e_0 = c_\phi c_\theta c_\psi + s_\phi s_\theta s_\psi, \quad e_1 = s_\phi c_\theta c_\psi - "
                 r"c_\phi s_\theta s_\psi, \quad e_2 = c_\phi s_\theta c_\psi + s_\phi c_\theta s_\psi, \quad "
                 r"e_3 = c_\phi c_\theta s_\psi - s_\phi s_\theta c_\psi",
                 r"c_\phi = \cos\tfrac{\phi}{2}, \; s_\phi = \sin\tfrac{\phi}{2}, \dots"),
                (("e", sp.Matrix([system.embedding.g[i] for i in e])), ("D", mech.D)))


def energy_step(mech):
    """The kinetic and potential energy in q, q' and the non-conservative generalized forces."""
    qd = ", ".join(sp.latex(tr.display_symbols(s)) for s in mech.qd)
    return Step("energies", "Energies and generalized forces",
                f"In the generalized coordinates $\\mathbf{{q}}$ with rates $\\dot{{\\mathbf{{q}}}} = ({qd})$ "
                f"the kinetic energy is "
                f"$T = \\tfrac12 \\dot{{\\mathbf{{q}}}}^{{T}}\\mathbf{{M}}_q\\dot{{\\mathbf{{q}}}}$ and the "
                f"potential energy $V(\\mathbf{{q}})$; the applied forces not derived from $V$ have the generalized "
                f"forces $\\mathbf{{Q}}_{{nc}}$ (their power is $\\mathbf{{Q}}_{{nc}}^{{T}}\\dot{{\\mathbf{{q}}}}$).",
                (r"L = T - V", r"\mathbf{Q}_{nc} = \mathbf{D}^{T}\mathbf{f} + \partial V/\partial\mathbf{q}"),
                (("T", mech.T), ("V", mech.V), ("M_q", mech.M), ("Q_nc", mech.Q_nc)))


def rows_step(mech):
    return Step("rows", "Constraints in the generalized velocities",
                f"The nonholonomic rows in $\\dot{{\\mathbf{{q}}}}$, "
                f"${tr.NAMES['C_bar_nh'][0]}\\dot{{\\mathbf{{q}}}} = \\mathbf{{0}}$; their multipliers are the "
                "reactions.",
                (), (("C_bar_nh", mech.C_bar),))


def lagrange(mech, simp, steps, given=None):
    """Lagrange's equations with multipliers, and the rows at acceleration level."""
    steps += opening_steps(mech)
    momenta, E = lagrange_expressions(mech, simp)
    lam = sp.Matrix(mech.system.multipliers[mech.system.m:])
    react = mech.C_bar.T * lam if mech.l else sp.zeros(mech.k, 1)
    steps.append(Step("lagrange", "Lagrange's equations",
                      "For each coordinate the rate of change of its momentum minus the force of $L$ equals the "
                      "non-conservative force and the reactions of the rows (with the workbench's sign: "
                      "$\\mathbf{C}^{T}\\boldsymbol{\\lambda}$ is subtracted from the applied forces).",
                      (r"\frac{d}{dt}\frac{\partial L}{\partial \dot{\mathbf{q}}} - \frac{\partial L}{\partial "
                       rf"\mathbf{{q}}}} = \mathbf{{Q}}_{{nc}} - {tr.NAMES['C_bar_nh'][0]}^{{T}}{LAM_NH}"
                       if mech.l else r"\frac{d}{dt}\frac{\partial L}{\partial \dot{\mathbf{q}}} - \frac{\partial L}"
                       r"{\partial \mathbf{q}} = \mathbf{Q}_{nc}",),
                      (("p_q", momenta), ("E_L", E))))
    rows_acc = mech.d_dt(mech.C_bar * mech.qd) if mech.l else sp.zeros(0, 1)
    if mech.l:
        steps.append(Step("equations", "Equations of motion",
                          "With the rows differentiated once in time, the $k$ equations of Lagrange and the $l$ rows "
                          "give the accelerations and the multipliers together.",
                          (rf"{tr.NAMES['C_bar_nh'][0]}\ddot{{\mathbf{{q}}}} + \dot{{{tr.NAMES['C_bar_nh'][0]}}}"
                           r"\dot{\mathbf{q}} = \mathbf{0}",), (("rows_dot", simp(rows_acc)),)))
    residual = (E - mech.Q_nc + react).col_join(rows_acc)
    unknowns = tuple(mech.qdd) + tuple(lam)
    pieces = {"T": mech.T, "V": mech.V, "E_L": E, "p_q": momenta, "residual": residual}
    return pieces, MethodEquations("lagrange", unknowns, residual, sp.Matrix(mech.qdd), {s: s for s in mech.qd})


def projected(mech, simp, expressions, u, W):
    """``expressions`` (in q, q', q'') projected by W^T along q' = W u: (u', q'' in u' and u, the projection)."""
    udot, qdd = mech.accelerations(u, W, simp)
    on_u = dict(zip(mech.qd, W * u))
    on_acc = dict(zip(mech.qdd, qdd))
    return udot, qdd, simp(W.T * expressions.subs(on_acc).subs(on_u))


def maggi(mech, simp, steps, given=None):
    """Maggi's equations: Lagrange's expressions projected on the independent velocities q'_i."""
    steps += opening_steps(mech)
    u, Y = independent_speeds(mech)
    _, W = velocity_map(mech, Y, simp)
    chosen = ", ".join(sp.latex(tr.display_symbols(s)) for s in u)
    steps.append(Step("independent", "Independent velocities",
                      f"Solving the rows for the other rates with $({chosen})$ independent gives "
                      r"$\dot{\mathbf{q}} = \bar{\mathbf{D}}\dot{\mathbf{q}}_i$, and $\bar{\mathbf{D}}$'s columns are "
                      "the admissible directions: the reactions do no work along them.",
                      (r"\dot{\mathbf{q}} = \bar{\mathbf{D}}\,\dot{\mathbf{q}}_{i}, \quad "
                       rf"{tr.NAMES['C_bar_nh'][0]}\bar{{\mathbf{{D}}}} = \mathbf{{0}}",), (("D_bar", W),)))
    _, E = lagrange_expressions(mech, simp)
    udot, qdd, residual = projected(mech, simp, E - mech.Q_nc, u, W)
    steps.append(Step("equations", "Maggi's equations",
                      "Each of Lagrange's equations weighted by an admissible direction and summed: the multipliers "
                      "drop out and $r$ equations in the accelerations of the independent velocities "
                      "remain." + RESIDUAL,
                      (r"\sum_{j} \bar{D}_{jr}\Big(\frac{d}{dt}\frac{\partial L}{\partial \dot{q}_j} - "
                       r"\frac{\partial L}{\partial q_j} - Q_{nc,j}\Big) = 0, \quad r = 1, \dots, k - l",),
                      (("residual", residual),)))
    velocities = {s: s for s in u}
    return {"D_bar": W, "residual": residual}, MethodEquations("maggi", tuple(udot), residual, qdd, velocities)


def kane(mech, simp, steps, given=None):
    """Kane's equations F_r + F*_r = 0 in generalized speeds u = Y q'."""
    steps += opening_steps(mech)
    u, Y = speeds(mech, given)
    _, W = velocity_map(mech, Y, simp)
    defs = ", ".join(f"{sp.latex(tr.display_symbols(s))} = {sp.latex(tr.display_symbols(e))}"
                     for s, e in zip(u, Y * mech.qd))
    steps.append(Step("speeds", "Generalized speeds",
                      f"Kane's generalized speeds ${defs}$ and the rows determine every rate: "
                      r"$\dot{\mathbf{q}} = \mathbf{W}\mathbf{u}$; the columns of $\mathbf{W}$ are the partial "
                      "velocities of the coordinates, $\\partial\\dot{\\mathbf{q}}/\\partial u_r$.",
                      (r"\dot{\mathbf{q}} = \mathbf{W}(\mathbf{q})\,\mathbf{u}",), (("u", u), ("W", W))))
    _, E_T = lagrange_expressions(mech, simp, mech.T)
    udot, qdd, inertia = projected(mech, simp, E_T, u, W)
    F = simp(W.T * mech.Q.subs(dict(zip(mech.qd, W * u))))
    F_star = -inertia
    steps.append(Step("equations", "Kane's equations",
                      "The generalized active forces $F_r$ (applied forces along the partial velocities) and the "
                      "generalized inertia forces $F^{*}_r = -\\mathbf{W}_r^{T}(\\frac{d}{dt}\\frac{\\partial T}"
                      "{\\partial \\dot{\\mathbf{q}}} - \\frac{\\partial T}{\\partial \\mathbf{q}})$ balance, one "
                      "equation per generalized speed; the reactions do no work along the partial velocities.",
                      (r"F_r + F^{*}_r = 0, \quad r = 1, \dots, k - l",), (("F_r", F), ("F_star", F_star))))
    residual = inertia - F
    velocities = dict(zip(u, Y * mech.qd))
    pieces = {"u": u, "W": W, "F_r": F, "F_star": F_star, "residual": residual}
    return pieces, MethodEquations("kane", tuple(udot), residual, qdd, velocities)
