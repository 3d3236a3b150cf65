"""Euler parameters replaced by angles for the classical methods, which need generalized coordinates:
each unit quaternion e = (e0, e1, e2, e3) of the system's coordinates (R = R(e), world <- body) is
written in yaw psi, pitch theta and roll phi, R = Rz(psi) Ry(theta) Rx(phi), the product of the
quaternions of the three turns:

    e0 = c_f c_t c_p + s_f s_t s_p,   e1 = s_f c_t c_p - c_f s_t s_p,
    e2 = c_f s_t c_p + s_f c_t s_p,   e3 = c_f c_t s_p - s_f s_t c_p

(c_f = cos(phi / 2), s_t = sin(theta / 2), c_p = cos(psi / 2) ...). The chart covers every
orientation but those with pitch +-90 deg, where yaw and roll turn about the same axis. The velocities
keep their meaning: v = D q' with D = (A^T A)^-1 A^T g_q, the unit norm e.e = 1 used in A^T A.
"""
from __future__ import annotations

import copy

import sympy as sp
from sympy.simplify.fu import TR8

from systems.description import Embedding

ANGLES = ("psi", "theta", "phi")  # yaw, pitch, roll


def quaternion(psi, theta, phi) -> list:
    """(e0, e1, e2, e3) of R = Rz(psi) Ry(theta) Rx(phi)."""
    cf, sf = sp.cos(phi / 2), sp.sin(phi / 2)
    ct, st = sp.cos(theta / 2), sp.sin(theta / 2)
    cp, sp_ = sp.cos(psi / 2), sp.sin(psi / 2)
    return [cf * ct * cp + sf * st * sp_, sf * ct * cp - cf * st * sp_,
            cf * st * cp + sf * ct * sp_, cf * ct * sp_ - sf * st * cp]


def angles_of(e) -> list:
    """(psi, theta, phi) of the unit quaternion e (expressions)."""
    e0, e1, e2, e3 = e
    return [sp.atan2(2 * (e0 * e3 + e1 * e2), 1 - 2 * (e2**2 + e3**2)),
            sp.asin(2 * (e0 * e2 - e3 * e1)),
            sp.atan2(2 * (e0 * e1 + e2 * e3), 1 - 2 * (e1**2 + e2**2))]


def has_euler_parameters(system) -> bool:
    emb = system.embedding
    return bool(system.unit_norm_blocks) or bool(emb is not None and emb.unit_norm_blocks)


def with_angles(system):
    """A copy of ``system`` whose embedding takes angles in place of its Euler parameters (q' = w), or
    ``system`` itself where it has none (or has holonomic rows without an embedding). The copy is not
    validated again: only its embedding differs (and its default independent velocities, which named
    rates of the Euler parameters, are dropped), and the methods read it."""
    emb = system.embedding
    if not has_euler_parameters(system) or (emb is None and system.m):  # the latter: refused, no embedding
        return system
    if emb is None:
        q, g, inverse, blocks = system.coordinates, sp.Matrix(system.coordinates), sp.Matrix(system.coordinates), \
            system.unit_norm_blocks
    else:
        q, g, inverse, blocks = emb.coordinates, sp.Matrix(emb.g), sp.Matrix(emb.inverse), emb.unit_norm_blocks
    taken = {s.name for s in (*system.coordinates, *q, *system.velocities)} | set(system.parameter_names)
    taken |= {f"{name}_dot" for name in taken}
    new_q, new_inverse, on_e = [], [], {}
    in_block = {i: b for b in blocks for i in b}
    for i, s in enumerate(q):
        if i not in in_block:
            new_q.append(s)
            new_inverse.append(inverse[i])
        elif i == in_block[i][0]:
            block = in_block[i]
            suffix = "" if len(blocks) == 1 else f"_{blocks.index(block) + 1}"
            names = [_free(name + suffix, taken) for name in ANGLES]
            angles = sp.symbols(names, real=True)
            on_e.update(zip((q[j] for j in block), quaternion(*angles)))
            new_q += angles
            new_inverse += angles_of([inverse[j] for j in block])
    embedding = Embedding(coordinates=tuple(new_q), g=g.xreplace(on_e), inverse=sp.Matrix(new_inverse),
                          velocities=tuple(sp.Symbol(f"{s.name}_dot", real=True) for s in new_q))
    out = copy.copy(system)
    object.__setattr__(out, "embedding", embedding)
    object.__setattr__(out, "independent_velocities", ())
    return out


def _free(name, taken):
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def unit_norm_gram(system):
    """A^T A (n, n) with e0^2 = 1 - e1^2 - e2^2 - e3^2 for every unit quaternion of p: for the
    quaternion kinematics e' = G(e) omega / 2 its block is I / 4."""
    A = sp.Matrix(system.A)
    gram = sp.expand(A.T * A)
    p = system.coordinates
    for block in system.unit_norm_blocks:
        e = [p[i] for i in block]
        gram = sp.expand(gram.subs(e[0] ** 2, 1 - e[1] ** 2 - e[2] ** 2 - e[3] ** 2))
    return gram


def clean(expr):
    """``expr`` (a Matrix or an expression) with products of half-angle sines and cosines turned into
    sums of whole angles (sympy's TR8) and square roots of squares taken: the form the quaternion
    of the angles leaves, cheap to reduce, costly to carry through a derivation unreduced."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(clean)
    roots = lambda x: x.is_Pow and x.exp.is_Rational and x.exp.q == 2  # noqa: E731
    expr = expr.replace(roots, lambda x: sp.Pow(sp.trigsimp(sp.factor(x.base)), x.exp))
    return sp.cancel(sp.expand(TR8(sp.expand(expr))))
