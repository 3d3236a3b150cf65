"""Contacts: constraint rows that may let go.

A contact names the row whose multiplier is its normal force lambda_n, written (as the
catalogue's rows are) so that lambda_n > 0 pushes the bodies apart; the rows whose multipliers
are the friction forces it transmits (rolling or no-slip rows), lambda_t; a friction coefficient
mu; and Newton's coefficient of restitution e for an impact when it closes. It holds while

    lambda_n >= 0                   unilateral: a support pushes, it never pulls
    |lambda_t| <= mu lambda_n       Coulomb's cone, |.| the Euclidean norm over the tangential rows

Every run holds its rows as bilateral, ideal constraints. ``margins`` measures how far inside these
limits the reactions of a run stayed: the normal margin lambda_n and the friction margin
mu lambda_n - |lambda_t| (where mu is declared and the contact pushes), both in the unit of the
normal row; a negative margin is where the contact would open or slide. Where the normal row is
holonomic, Phi = -g(p) with g the gap, so g(p) >= 0 is the open side (``gap``).

mu: a number >= 0, the name of a parameter declared non-negative (then ``--set mu=...``, ensembles
and with_parameters change it), or None: perfectly rough, friction never limits the rows.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import sympy as sp

SLACK = 1e-6  # a margin below -SLACK x (largest |reaction| of the contact over the run) counts as crossed


@dataclass(frozen=True)
class Contact:
    """A contact that may open (its normal row) and slide (its tangential rows, under mu).

    It holds while lambda_n >= 0 (a support pushes, it never pulls) and ‖lambda_t‖ <= mu lambda_n
    (Coulomb's cone). A System declares its contacts in ``contacts`` (or a builder's ``unilateral``
    and ``friction``); the constructor takes the attributes below, in order or by keyword.

    Attributes
    ----------
    normal : str
        Name of the row whose multiplier is the normal force lambda_n (> 0: pushing).
    tangential : tuple of str
        Names of the rows whose multipliers are its friction forces lambda_t (one str: one name).
    mu : float, str or None
        Friction coefficient: a number >= 0, the name of a non-negative parameter, or None:
        perfectly rough (friction never limits the rows). Default None.
    restitution : float or str
        Newton's e in [0, 1] (0: the bodies stay together after an impact), or the name of a
        non-negative parameter holding it. Default 0.
    name : str
        The contact's name (default: the normal row's name).

    See Also
    --------
    formulations.simulate_contacts : A run in which contacts open, close, slide and roll.

    Examples
    --------
    >>> import systems
    >>> disc = systems.load("rolling_disc")
    >>> ground = disc.contacts[0]
    >>> ground.name, ground.normal, ground.tangential
    ('ground', 'contact normal force', ('longitudinal friction force', 'lateral friction force'))
    >>> ground.mu, ground.friction_coefficient(disc)
    ('mu', 0.5)
    >>> systems.Contact("rod tension")
    Contact(normal='rod tension', tangential=(), mu=None, restitution=0.0, name='rod tension')
    """

    normal: str
    tangential: tuple = ()
    mu: float | str | None = None
    restitution: float | str = 0.0
    name: str = ""

    def __post_init__(self):
        if isinstance(self.tangential, str):
            object.__setattr__(self, "tangential", (self.tangential,))
        object.__setattr__(self, "tangential", tuple(self.tangential))
        if not self.name and isinstance(self.normal, str):
            object.__setattr__(self, "name", self.normal)

    def friction_coefficient(self, system) -> float | None:
        """mu at the system's current parameter values (None: perfectly rough)."""
        if self.mu is None:
            return None
        if isinstance(self.mu, str):
            return float(system.parameter_dict[self.mu])
        return float(self.mu)

    def restitution_coefficient(self, system) -> float:
        """e at the system's current parameter values; ValueError where a parameter puts it above 1."""
        e = float(system.parameter_dict[self.restitution]) if isinstance(self.restitution, str) else float(
            self.restitution)
        if e > 1.0:
            raise ValueError(f"system {system.name!r}: contact {self.name!r} has restitution {e:g} (parameter "
                             f"{self.restitution!r}) but expected at most 1 (an impact gains no energy)")
        return e

    def gap(self, system):
        """The gap g(p) >= 0 (sympy, in p and the parameters) where the normal row is holonomic
        (g = -Phi of that row); None where it is a velocity row."""
        i = system.constraint_names.index(self.normal)
        return -system.Phi[i] if i < system.m else None


class Margin(NamedTuple):
    """One contact's margins over a run, each (N,) in the unit of its normal row (NaN where the
    multipliers are missing): ``normal`` lambda_n; ``friction`` mu lambda_n - |lambda_t| (None
    without mu or tangential rows); ``slack`` the size below zero that counts as crossed."""

    normal: np.ndarray
    friction: np.ndarray | None
    slack: float


def margins(system, multipliers) -> dict:
    """{contact name: Margin} for multipliers (N, m + l) in the order of system.constraint_names."""
    lam = np.atleast_2d(np.asarray(multipliers, dtype=float))
    names = system.constraint_names
    out = {}
    for contact in system.contacts:
        normal = lam[:, names.index(contact.normal)]
        tangential = lam[:, [names.index(n) for n in contact.tangential]]
        both = np.concatenate([normal[:, None], tangential], axis=1)
        finite = both[np.all(np.isfinite(both), axis=1)]
        slack = SLACK * float(np.max(np.abs(finite), initial=0.0))
        mu = contact.friction_coefficient(system)
        friction = None
        if mu is not None and contact.tangential:
            friction = mu * normal - np.linalg.norm(tangential, axis=1)
        out[contact.name] = Margin(normal, friction, slack)
    return out


def crossings(system, t, multipliers) -> list:
    """One sentence per contact limit a run crossed: where its normal force pulled (the contact
    would open) and where friction exceeded mu times it (the contact would slide), with the first
    time, the worst value and its time; empty where every contact held."""
    notes, by_name = [], margins(system, multipliers)
    unit = system.unit_of
    for contact in system.contacts:
        margin = by_name[contact.name]
        pulls = margin.normal < -margin.slack
        u = unit(contact.normal)
        if pulls.any():
            k = int(np.nanargmin(margin.normal))
            notes.append(f"contact {contact.name!r} pulls: its normal force {contact.normal!r} is negative from "
                         f"t = {t[np.argmax(pulls)]:.6g} on ({_share(pulls)} of the points; down to "
                         f"{margin.normal[k]:.4g} {u} at t = {t[k]:.6g}), so the contact would open there; the run "
                         f"held it as a bilateral constraint")
        if margin.friction is None:
            continue
        slides = (margin.friction < -margin.slack) & ~pulls
        if slides.any():
            k = int(np.nanargmin(np.where(slides, margin.friction, np.inf)))
            mu = contact.friction_coefficient(system)
            notes.append(f"contact {contact.name!r} slides: the friction force |({', '.join(contact.tangential)})| "
                         f"exceeds mu x normal force (mu = {mu:g}) from t = {t[np.argmax(slides)]:.6g} on "
                         f"({_share(slides)} of the points; by up to {-margin.friction[k]:.4g} {u} at t = "
                         f"{t[k]:.6g}), so the contact would slide there; the run held its rows")
    return notes


def free_rows(system, Phi, Cv, tol):
    """(Phi, Cv) with the residuals of the rows a contact may leave set to zero: a contact whose gap is
    open (-Phi of its holonomic normal row > tol) frees its normal and friction rows; a closed one
    frees its normal velocity row where it separates (C v + c < 0 there) and its friction rows where
    friction is limited (mu given: it may slide). Phi (m,), Cv (m + l,): the residuals at a state."""
    Phi, Cv = np.array(Phi, dtype=float), np.array(Cv, dtype=float)
    names = system.constraint_names
    for contact in system.contacts:
        i = names.index(contact.normal)
        rows = [names.index(n) for n in contact.tangential]
        if i < system.m and -Phi[i] > tol:
            Phi[i] = 0.0
            Cv[[i] + rows] = 0.0
            continue
        if Cv[i] < 0:
            Cv[i] = 0.0
        if contact.mu is not None:
            Cv[rows] = 0.0
    return Phi, Cv


def starts_let_go(system) -> bool:
    """Whether the system's default state has a contact open or sliding: rows it breaks that only its
    contacts may leave (then a bilateral run cannot start there; formulations.simulate_contacts can)."""
    if not system.contacts:
        return False
    p, v = system.default_state()
    scale = 1e-9 * (1.0 + float(np.max(np.abs(np.concatenate([p, v])), initial=0.0)))

    def broken(Phi, Cv):
        return max(np.max(np.abs(Phi), initial=0.0), np.max(np.abs(Cv), initial=0.0)) > scale
    Phi, Cv = system.residuals(p, v)
    return bool(broken(Phi, Cv) and not broken(*free_rows(system, Phi, Cv, scale)))


def _share(mask) -> str:
    return f"{np.count_nonzero(mask)} of {mask.size}"


def check(system) -> list:
    """Every problem of ``system.contacts`` as a message (empty when the declarations are valid)."""
    problems, used, seen = [], {}, set()
    rows = system.constraint_names
    parameters = {p.name: p for p in system.parameters}
    for i, contact in enumerate(system.contacts):
        if not isinstance(contact, Contact):
            problems.append(f"contacts[{i}] got {contact!r:.80} ({type(contact).__name__}) but expected a "
                            f"systems.Contact(normal, tangential, mu, restitution)")
            continue
        label = f"contact {contact.name!r}" if isinstance(contact.name, str) else f"contacts[{i}]"
        if contact.name in seen:
            problems.append(f"{label} is declared twice; give each contact its own name")
        seen.add(contact.name)
        for role, name in [("normal", contact.normal)] + [("tangential", n) for n in contact.tangential]:
            if name not in rows:
                problems.append(f"{label}: its {role} row {name!r} is not a constraint row of the system; expected "
                                f"one of {', '.join(map(repr, rows)) or '(none: the system has no rows)'}")
            elif name in used:
                problems.append(f"{label}: row {name!r} already belongs to contact {used[name]!r}; a row carries "
                                f"one contact's force")
            else:
                used[name] = contact.name
        problems += _mu_problems(label, contact, parameters)
        e = contact.restitution
        if isinstance(e, str):
            if e not in parameters or not parameters[e].symbol.is_nonnegative:
                problems.append(f"{label}: restitution names {e!r}, which is not a parameter declared non-negative; "
                                f"expected a number in [0, 1] or such a parameter's name")
            elif parameters[e].default > 1:
                problems.append(f"{label}: restitution parameter {e!r} has default {parameters[e].default:g} but "
                                f"expected at most 1")
        elif isinstance(e, bool) or not isinstance(e, (int, float)) or not 0.0 <= float(e) <= 1.0:
            problems.append(f"{label}: restitution got {e!r} but expected a number in [0, 1] (0: the bodies stay "
                            f"together after an impact; 1: elastic)")
    return problems


def _mu_problems(label, contact, parameters) -> list:
    mu = contact.mu
    if mu is None:
        return []
    if isinstance(mu, str):
        if mu not in parameters:
            return [f"{label}: mu names {mu!r}, which is not a parameter of the system; expected a number >= 0 or "
                    f"one of {', '.join(map(repr, parameters)) or '(none)'}"]
        symbol = parameters[mu].symbol
        if not (symbol.is_nonnegative or symbol.is_positive):
            return [f"{label}: mu names parameter {mu!r}, whose symbol may be negative; declare it "
                    f"sympy.Symbol({symbol.name!r}, nonnegative=True) so that a negative value is refused"]
    elif isinstance(mu, bool) or not isinstance(mu, (int, float, sp.Number)) or not (
            math.isfinite(float(mu)) and float(mu) >= 0.0):
        return [f"{label}: mu got {mu!r} but expected a finite number >= 0, a parameter's name or None "
                f"(perfectly rough)"]
    if not contact.tangential:
        return [f"{label}: mu is given but no tangential rows; name the friction rows it limits "
                f"(tangential=...) or leave mu out"]
    return []
