"""The system of one contact mode (systems.contacts): which contacts are open, which slide.

An open contact's rows (normal and friction) leave the description; its multipliers are zero (so a
force that depends on them, such as rolling resistance, vanishes). A sliding contact's friction
rows leave it, and Coulomb's force takes their place, opposing the slip:

    lambda_t = mu lambda_n w / |w|,   w = r + o,   r = C_t v + c_t   (the friction rows' residuals)

applied as -C_t^T lambda_t, with lambda_n the normal multiplier that the phase still carries (f is
then affine in it: a non-ideal constraint). Its power -lambda_t . r = -mu lambda_n |r| is never
positive. o is a parameter of the phase, zero but at the onset of sliding, where r = 0: there it is
a slip speed of SLIP_ONSET times the velocity scale along the friction force that sticking needed,
which gives the slip its first direction.
"""
from __future__ import annotations

from dataclasses import replace

import sympy as sp

from .parameters import Parameter

SLIP_ONSET = 1e-9  # the offset o at the onset of sliding, in units of the velocity scale


def label(open_contacts=(), sliding=()) -> str:
    """'open: a; sliding: b' (or 'all closed, sticking')."""
    parts = ([f"open: {', '.join(sorted(open_contacts))}"] if open_contacts else []) + (
        [f"sliding: {', '.join(sorted(sliding))}"] if sliding else [])
    return "; ".join(parts) or "all closed, sticking"


def offset_names(system, contact) -> tuple:
    """The names of the slip-offset parameters of a sliding contact in its phase system."""
    return tuple(f"slip_offset_{system.contacts.index(contact)}_{k}" for k in range(len(contact.tangential)))


def phase_system(system, open_contacts=(), sliding=(), state=None):
    """``system`` with the rows of the open contacts left out and the friction rows of the sliding
    ones replaced by Coulomb's force (module docstring); the result keeps the contacts that are
    closed and sticking, and declares no embedding and no choice of independent velocities (the
    rows changed). ``state`` (p, v), where given, is its default state: one in this mode (the
    system's own default state may have a contact open that the phase holds closed)."""
    contacts = {c.name: c for c in system.contacts}
    names, m = system.constraint_names, system.m
    drop, zero = set(), {}
    for name in open_contacts:
        c = contacts[name]
        for row in (c.normal, *c.tangential):
            drop.add(row)
            zero[system.multipliers[names.index(row)]] = 0
    f = sp.Matrix(system.f).xreplace(zero)
    extra = []
    for name in sliding:
        f, offsets = _coulomb(system, contacts[name], f)
        drop.update(contacts[name].tangential)
        extra += offsets
    keep = [i for i, n in enumerate(names) if n not in drop]
    Phi = [system.Phi[i] for i in keep if i < m]
    nh = [i - m for i in keep if i >= m]
    C_nh = sp.Matrix([system.C_nh.row(i) for i in nh]) if nh else sp.zeros(0, system.n)
    c_nh = sp.Matrix([system.c_nh[i] for i in nh]) if nh else None
    units = {k: u for k, u in system.units.items() if k not in drop}
    gone = {system.multipliers[names.index(n)] for n in drop}
    visuals = tuple(vis for vis in system.visuals  # an arrow of a force the phase does not carry is left out
                    if vis.end is None or not set().union(*(sp.sympify(e).free_symbols for e in vis.end)) & gone)
    defaults = {} if state is None else {"default_p": tuple(map(float, state[0])),
                                         "default_v": tuple(map(float, state[1]))}
    return replace(system, name=f"{system.name} ({label(open_contacts, sliding)})", f=f, **defaults,
                   Phi=sp.Matrix(Phi) if Phi else None, C_nh=C_nh, c_nh=c_nh,
                   constraint_names=tuple(names[i] for i in keep),
                   multipliers=tuple(system.multipliers[i] for i in keep),
                   parameters=system.parameters + tuple(extra),
                   parameter_values=system.parameter_values + tuple(0.0 for _ in extra),
                   embedding=None, independent_velocities=(), families=(), units=units, visuals=visuals,
                   contacts=tuple(c for c in system.contacts if c.name not in open_contacts and c.name not in sliding))


def _coulomb(system, contact, f):
    """(f with Coulomb's force of ``contact`` in place of its friction multipliers, the offset
    parameters)."""
    names = system.constraint_names
    rows = [names.index(n) for n in contact.tangential]
    v = sp.Matrix(system.velocities)
    C = sp.Matrix([system.C.row(i) for i in rows])
    c = sp.Matrix([sp.diff(system.Phi[i], system.time) if i < system.m else system.c_nh[i - system.m] for i in rows])
    offsets = [Parameter(sp.Symbol(n, real=True), 0.0, "", "slip direction at the onset of sliding")
               for n in offset_names(system, contact)]
    w = C * v + c + sp.Matrix([o.symbol for o in offsets])
    mu = (next(p.symbol for p in system.parameters if p.name == contact.mu) if isinstance(contact.mu, str)
          else sp.Float(contact.mu))
    normal = system.multipliers[names.index(contact.normal)]
    lam_t = mu * normal * w / sp.Max(sp.sqrt((w.T * w)[0, 0]), sp.Float(1e-300))  # no direction: no force
    f = f.xreplace({system.multipliers[i]: lam_t[k] for k, i in enumerate(rows)})
    return f - C.T * lam_t, offsets
