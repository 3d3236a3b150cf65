"""The Gibbs-Appell equations: the Gibbs function (acceleration energy) S, a function of the
accelerations of the generalized speeds, and dS/du'_r = Pi_r.

In generalized coordinates S = 1/2 a^T M_q a with the covariant acceleration a = q'' + M_q^-1 c,
c_l = sum_jk Gamma_l,jk q'_j q'_k and the Christoffel symbols of the first kind
Gamma_l,jk = 1/2 (dM_lj/dq_k + dM_lk/dq_j - dM_jk/dq_l); for particles this is 1/2 sum m a.a.
The term 1/2 c^T M_q^-1 c holds no acceleration and is left out: it does not enter dS/du'.

References: J. W. Gibbs, Am. J. Math. 2 (1879) 49-64; P. Appell, C. R. Acad. Sci. 129 (1899) 317-320;
L. A. Pars, A Treatise on Analytical Dynamics (1965), ch. XII.
"""
from __future__ import annotations

import sympy as sp

from ..steps import Step
from .lagrange import opening_steps
from .mechanics import MethodEquations, speeds, velocity_map


def christoffel_vector(mech, simp):
    """c(q, q') = sum_jk Gamma_l,jk q'_j q'_k from the derivatives of M_q (shape (k, 1))."""
    qd = mech.qd
    return simp((mech.M * qd).jacobian(mech.q) * qd - sp.Matrix([(qd.T * mech.M * qd)[0, 0]]).jacobian(mech.q).T / 2)


def gibbs_appell(mech, simp, steps, given=None):
    steps += opening_steps(mech)
    u, Y = speeds(mech, given)
    _, W = velocity_map(mech, Y, simp)
    udot, qdd = mech.accelerations(u, W, simp)
    on_u = dict(zip(mech.qd, W * u))
    c = christoffel_vector(mech, simp)
    steps.append(Step("christoffel", "Christoffel symbols",
                      "The velocity terms of the accelerations come from the derivatives of the mass matrix alone, "
                      "through the Christoffel symbols of the first kind.",
                      (r"c_l = \sum_{j,k} \Gamma_{l,jk}\,\dot{q}_j\dot{q}_k, \quad \Gamma_{l,jk} = \tfrac12\Big("
                       r"\frac{\partial M_{lj}}{\partial q_k} + \frac{\partial M_{lk}}{\partial q_j} - "
                       r"\frac{\partial M_{jk}}{\partial q_l}\Big)",), (("c", c),)))
    steps.append(Step("speeds", "Speeds and accelerations",
                      "The speeds $\\mathbf{u}$ and the rows determine the rates, $\\dot{\\mathbf{q}} = \\mathbf{W}"
                      "\\mathbf{u}$, and so the accelerations, $\\ddot{\\mathbf{q}} = \\mathbf{W}\\dot{\\mathbf{u}} + "
                      "\\dot{\\mathbf{W}}\\mathbf{u}$.",
                      (r"\ddot{\mathbf{q}} = \mathbf{W}\dot{\mathbf{u}} + \dot{\mathbf{W}}\mathbf{u}",),
                      (("u", u), ("W", W))))
    S = (qdd.T * mech.M.subs(on_u) * qdd / 2 + qdd.T * c.subs(on_u))[0, 0]
    Pi = simp(W.T * mech.Q.subs(on_u))
    # S is quadratic in u': S = 1/2 u'^T M_S u' + s_0^T u' + (terms free of u'), M_S and s_0 from its derivatives
    dS = sp.Matrix([S]).jacobian(udot).T
    M_S, s_0 = simp(dS.jacobian(udot)), simp(dS.xreplace({x: 0 for x in udot}))
    S = simp((udot.T * M_S * udot / 2 + s_0.T * udot)[0, 0])  # the part of S that depends on u', reduced
    dS = M_S * udot + s_0
    steps.append(Step("gibbs", "The Gibbs function",
                      "The acceleration energy, written in the accelerations of the speeds; only its dependence on "
                      "$\\dot{\\mathbf{u}}$ matters.",
                      (r"S = \tfrac12\,\ddot{\mathbf{q}}^{T}\mathbf{M}_q\ddot{\mathbf{q}} + \ddot{\mathbf{q}}^{T}"
                       r"\mathbf{c} + (\text{terms free of } \dot{\mathbf{u}})",
                       r"S = \tfrac12\,\dot{\mathbf{u}}^{T}\mathbf{M}_S\dot{\mathbf{u}} + \mathbf{s}_0^{T}"
                       r"\dot{\mathbf{u}} + (\text{terms free of } \dot{\mathbf{u}})"), (("S", S),)))
    steps.append(Step("equations", "The Gibbs-Appell equations",
                      "The rate of change of $S$ with each speed's acceleration equals the generalized force of that "
                      "speed, $\\Pi_r = \\mathbf{W}_r^{T}\\mathbf{Q}$ (the power of the applied forces per unit "
                      "speed); the reactions do no work along admissible motions and do not appear.",
                      (r"\frac{\partial S}{\partial \dot{u}_r} = \Pi_r, \quad r = 1, \dots, k - l",
                       r"\frac{\partial S}{\partial \dot{\mathbf{u}}} = \mathbf{M}_S\dot{\mathbf{u}} + \mathbf{s}_0"),
                      (("M_S", M_S), ("s_0", s_0), ("Pi", Pi))))
    return ({"S": S, "c": c, "u": u, "W": W, "Pi": Pi, "residual": dS - Pi},
            MethodEquations("gibbs-appell", tuple(udot), dS - Pi, qdd, dict(zip(u, Y * mech.qd))))
