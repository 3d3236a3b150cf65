"""Linearization about equilibria and steady motions, in the independent state of any formulation.

The dependent equations of motion are the vector field F(z) = (A v, a(z)) on z = (p, v), with the
accelerations a and multipliers lambda from [[M, C^T - f_lambda], [C, 0]] [a; lambda] = [f0 - d; -xi].
Differentiating the residuals R = M a + d - f + C^T lambda and S = C a + xi exactly
(formulations.linearization.pieces) gives J = dF/dz. The motion stays on the constraint set
{Phi(p) = 0, C(p) v = 0}, whose tangent at z0 is the null space of

    G = [[Phi_p, 0], [d/dp (C v), C]]                                   (m + m + l, n_p + n)

(Peterson, Gede & Hubbard, *Symbolic linearization of equations of motion of constrained multibody
systems*, Multibody Syst. Dyn., 2014: the linear model lives on that tangent and is written in
independent coordinates and speeds). A formulation's independent state y = Y(z) (for the minimal
formulation y = (q, u); for the dependent one chosen components of (p, v)) has Jacobian Q = dY/dz at
z0; the tangent map P = dz/dy solves [Q; G] P = [I; 0], and y' = Q(z) F(z) gives exactly

    A = dy'/dy = (Q J + d/dz (Q(z) F(z0))) P,

the second term being the change of the state map along the motion (zero at an equilibrium).
Inputs are parameters that enter only M, d and f (a torque, a force): B = Q dF/du.

A steady motion has every rate of y zero except those of ignorable coordinates, on which no other
rate depends (formulations.linearization.modes finds them); they drift and are labelled, as are the
conserved quantities (left null vectors of the remaining block). ``method="symbolic"`` does the
same steps in sympy with the parameters as symbols; the two agree to round-off.
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.linalg import null_space

from systems.arguments import real, state_pair
from systems.catalogue import as_system
from systems.errors import ArgumentError, ArgumentTypeError, UnknownNameError

from .. import registry
from ..base import Formulation, create
from ..inputs import input_names
from ..configuration import parse_configuration
from ..minimal import Minimal
from ..errors import CapabilityError, NotSteadyError
from ..linalg import SingularMatrixError, saddle_system, solve_saddle
from .modes import Linearization, LinearEquations, split_modes
from .pieces import pieces as linear_pieces
from .state_maps import rows
from .symbolic import symbolic_point, symbolic_linearization

METHODS = ("numeric", "symbolic")


def linearize(system, p0, v0, *, formulation=Minimal.name, ignorable=None, inputs=(), independent=None,
              method="numeric", symbols=None, t=0.0, tol=1e-8, **options) -> Linearization:
    """Linearize ``system`` about an equilibrium or a steady motion (p0, v0).

    The linear equations d(δy)/dt = A δy + B δu, in the independent state y of a formulation, keep to the
    constraints; ignorable coordinates (which drift along the motion) and conserved quantities are labelled.

    Parameters
    ----------
    system : System or str
        The system, or a catalogue name (``systems.names()``).
    p0, v0 : array_like
        The coordinates (n_p,) and velocities (n,) of the point, in their units (m, rad; m/s, rad/s, ...); they
        must satisfy the constraints.
    formulation : str or Formulation, optional
        A name (``formulations.names()``; default "minimal") or a created Formulation.
    ignorable : str or tuple of str, optional
        Names of coordinates of the formulation's state that may drift (default: found, ``Linearization.ignorable``).
    inputs : str or tuple of str, optional
        Names of parameters that enter only M, d and f (forces, torques): the columns of B.
    independent : tuple of str, optional
        Names of the independent coordinates and velocities (dependent: components of p and v; reduced,
        manifold: of w; minimal: its ``independent`` option); default: chosen by pivoting.
    method : {"numeric", "symbolic"}, optional
        "numeric" (default: exact derivatives lambdified once per structure) or "symbolic" (sympy;
        ``equations()`` in LaTeX).
    symbols : str or tuple of str, optional
        The parameters kept as symbols by the symbolic variant (default: all; the others take their values).
    t : float, optional
        The time of the point in s (default 0; a description with time in it is linearized at that instant).
    tol : float, optional
        The relative size of a rate below which it counts as zero (default 1e-8).
    **options
        Go to ``formulations.create`` where ``formulation`` is a name (backend "numpy" unless given).

    Returns
    -------
    Linearization
        A (n_y, n_y) and B (n_y, n_u), the state and input names, and the labelled eigenvalues and modes.

    Raises
    ------
    NotSteadyError
        Naming the rates of the point that are not zero.
    InconsistentStateError
        Where (p0, v0) violates the constraints.
    CapabilityError
        For coordinates with Euler parameters, or an embedding or chart that moves with the constraints.

    See Also
    --------
    stability : The eigenvalues along a family of steady motions.

    Examples
    --------
    >>> import numpy as np, formulations
    >>> lin = formulations.linearize("pendulum_cartesian", [0.0, -1.0], [0.0, 0.0])  # hanging at rest, L = 1 m
    >>> lin.state_names, np.allclose(lin.A, [[0.0, 1.0], [-9.81, 0.0]])
    (('angle', 'angle_dot'), True)
    >>> np.round(lin.nontrivial.imag, 4).tolist()  # ± sqrt(g / L) in rad/s
    [3.1321, -3.1321]
    >>> lin.equations().characteristic_polynomial()  # the parameters as symbols
    g + s**2
    """
    if isinstance(formulation, Formulation):
        if options:
            raise ArgumentError(f"linearize got a created formulation and options {sorted(options)}: expected the "
                                f"options in formulations.create", "options")
        form = formulation
    elif isinstance(formulation, str):
        named = parse_configuration(formulation, "formulation").formulation
        if independent is not None and "independent" in registry.formulation_class(named).options:
            options["independent"], independent = independent, None
        options.setdefault("backend", "numpy")
        form = create(formulation, as_system(system), **options)
    else:
        raise ArgumentTypeError(f"linearize got formulation={formulation!r} but expected a formulation name or a "
                                f"created Formulation", "formulation")
    return linearize_formulation(form, p0, v0, ignorable=ignorable, inputs=inputs, independent=independent,
                                 method=method, symbols=symbols, t=t, tol=tol)


def linearize_formulation(form, p0, v0, *, ignorable=None, inputs=(), independent=None, method="numeric",
                          symbols=None, t=0.0, tol=1e-8, conserved=None) -> Linearization:
    """linearize for a created formulation (Formulation.linearize); ``conserved``: the number of
    conserved quantities to label (default: found from the rank of the state matrix)."""
    form = form.for_run()  # the choice of u and the chart it takes are its own, not the formulation's
    system = form.system
    if method not in METHODS:
        raise UnknownNameError("linearization method", method, METHODS, argument="method")
    if system.unit_norm_blocks:
        raise CapabilityError(f"linearize got system {system.name!r}, whose coordinates hold Euler parameters, but "
                              f"expected coordinates without a unit-norm block (describe the orientation by angles)")
    if form.geometry is not None and _moving_map(system):
        raise CapabilityError(f"linearize got system {system.name!r}, whose holonomic constraints depend on time, with "
                              f"formulation {form.name!r}, whose state map (embedding or chart) moves with them; "
                              f"expected a fixed map: use the 'dependent' formulation")
    t = real("t", t)
    tol = real("tol", tol, positive=True)
    inputs = input_names(system, inputs)
    symbolic = method == "symbolic"
    z0_sym = symbolic_point(system, p0, v0) if symbolic else None
    if symbolic:
        values = system.parameter_map
        p0 = [float(sp.sympify(x).xreplace(values)) for x in z0_sym[0]]
        v0 = [float(sp.sympify(x).xreplace(values)) for x in z0_sym[1]]
    p0, v0 = state_pair(system, (p0, v0), "(p0, v0)")
    form.check_state(p0, v0, t=t)
    pieces = linear_pieces(system)
    at = _numeric_point(system, pieces, t, p0, v0, inputs)
    state = registry.piece("linearization", form.name)(form, pieces, at, p0, v0, independent)
    names = state.names
    Q, H = rows(state, form.geometry, pieces, at)
    P = _tangent_map(form, at["G"], Q, names)
    A = (Q @ at["J"] + H) @ P
    B = Q @ at["F_u"]
    ydot = Q @ at["F0"]
    equations = None
    if symbolic:
        fixed = _fixed_parameters(system, symbols)
        A_sym, B_sym, ydot_sym = symbolic_linearization(system, pieces, form.geometry, state, t, z0_sym, at["G"],
                                                        at["C"], inputs, fixed)
        values = system.parameter_map
        A = np.array(A_sym.xreplace(values).evalf(), dtype=float)
        B = np.array(B_sym.xreplace(values).evalf(), dtype=float).reshape(len(names), len(inputs))
        ydot = np.array(ydot_sym.xreplace(values).evalf(), dtype=float).ravel()
        equations = LinearEquations(system.name, form.label(), names, inputs, A_sym, B_sym)
    modes = split_modes(A, names, state.kind, ignorable=ignorable, conserved=conserved)
    _check_steady(form, names, ydot, modes, at["F0"], tol)
    return Linearization(system.name, form.label(), method, names, A, B, inputs, p0, v0, t,
                         dict(zip(names, ydot.tolist())), modes, P, system.coordinate_names + system.velocity_names,
                         equations, _symbolic_later(form, p0, v0, ignorable, inputs, independent, t, tol))


def _symbolic_later(form, p0, v0, ignorable, inputs, independent, t, tol):
    def make():
        return linearize_formulation(form, p0, v0, ignorable=ignorable, inputs=inputs, independent=independent,
                                     method="symbolic", t=t, tol=tol).equations()
    return make


def _fixed_parameters(system, symbols):
    """{symbol: value} of the parameters that the symbolic variant does not keep as symbols."""
    if symbols is None:
        return {}
    symbols = (symbols,) if isinstance(symbols, str) else tuple(symbols)
    for name in symbols:
        if name not in system.parameter_names:
            raise UnknownNameError(f"parameter of system {system.name!r}", name, system.parameter_names,
                                   argument="symbols")
    return {par.symbol: sp.nsimplify(value) for par, value in zip(system.parameters, system.parameter_values)
            if par.name not in symbols and par.symbol.name not in symbols}


# -- the dependent vector field and its derivatives at one point --------------------------------------
class _Saddle:
    """The saddle-point matrix K = [[M, C^T - F], [C, 0]] of one point (formulations.linalg), solved
    by its one solve: LU where K is regular, the minimum-norm solution where redundant rows make it
    rank-deficient; such a solution must still satisfy K x = rhs."""

    def __init__(self, M, C, F, system):
        n, c = M.shape[0], C.shape[0]
        self.K = saddle_system(M, np.zeros(n), None, None, C, np.zeros(c), F=F, C=C)[0]
        self.system = system

    def solve(self, rhs, what):
        x, deficient = solve_saddle(self.K, rhs, f"the saddle-point matrix of {self.system.name!r}")
        scale = 1.0 + np.max(np.abs(rhs), initial=0.0)
        if deficient and np.max(np.abs(self.K @ x - rhs), initial=0.0) > 1e-8 * scale * (1 + np.max(np.abs(self.K))):
            raise SingularMatrixError(f"the saddle-point matrix [[M, C^T], [C, 0]] of {self.system.name!r}",
                                      f"at the operating point {what} has no solution; the constraints may be "
                                      f"inconsistent there")
        return x


def _numeric_point(system, pieces, t, p, v, inputs):
    """The dependent field F0, its Jacobian J, the tangent matrix G and dF/du at (t, p, v)."""
    par = system.params
    n_p, n = len(p), len(v)
    at = system.numeric.dynamics(t, p, v, par)
    M, d, f0, F, C, xi, A = at.M, at.d, at.f0, at.F, at.C, at.xi, at.A
    K = _Saddle(M, C, F, system)
    sol = K.solve(np.concatenate([f0 - d, -xi]), "the accelerations")
    a, lam = sol[:n], sol[n:]
    RS_z = pieces.dynamics(t, p, v, a, lam, par)
    a_z = -K.solve(RS_z, "the derivative of the accelerations")[:n]
    rho_z = pieces.kinematics(p, v, par)
    J = np.vstack([rho_z, a_z])
    Phi_p = system.numeric.constraints(p, par, t)[1]
    G = np.vstack([np.hstack([Phi_p, np.zeros((system.m, n))]), np.hstack([pieces.tangent(p, v, par, t), C])])
    F_u = np.zeros((n_p + n, len(inputs)))
    if inputs:
        idx = [system.parameter_names.index(name) for name in inputs]
        RS_u = pieces.dynamics_params(t, p, v, a, lam, par)[:, idx]
        F_u[n_p:] = -K.solve(RS_u, "the derivative with respect to the inputs")[:n]
    return {"F0": np.concatenate([A @ v, a]), "J": J, "G": G, "F_u": F_u, "p": p, "v": v, "par": par,
            "lam": lam, "a": a, "C": C, "t": t}


def _moving_map(system) -> bool:
    """True where the map to reduced coordinates depends on time (moving holonomic constraints)."""
    emb = system.embedding
    timed = emb is not None and system.time in (sp.Matrix(emb.g).free_symbols | sp.Matrix(emb.inverse).free_symbols)
    return system.has_moving_holonomic or timed


def _tangent_map(form, G, Q, names):
    """P = dz/dy with [Q; G] P = [I; 0]: the tangent of the constraint set in the coordinates y."""
    N = null_space(G)
    if N.shape[1] != Q.shape[0]:
        raise CapabilityError(f"formulation {form.name!r} of {form.system.name!r}: the constraint set has "
                              f"{N.shape[1]} dimensions at the operating point but the state ({', '.join(names)}) has "
                              f"{Q.shape[0]}; the constraints may be singular there")
    QN = Q @ N
    if np.linalg.cond(QN) > 1e10:
        raise CapabilityError(f"formulation {form.name!r} of {form.system.name!r}: the state ({', '.join(names)}) "
                              f"cannot describe the motions near the operating point (cond = {np.linalg.cond(QN):.2e}); "
                              f"choose other independent coordinates or velocities")
    return N @ np.linalg.inv(QN)


# -- the steady-motion check ------------------------------------------------------------------------
def _check_steady(form, names, ydot, modes, F0, tol):
    scale = 1.0 + np.max(np.abs(F0), initial=0.0)
    quasi = getattr(form, "quasi", None)
    turning = quasi.Y.free_symbols if quasi is not None else set()
    moving = {s.name: float(rate) for s, rate in zip(form.system.coordinates, F0) if s in turning
              and abs(rate) > tol * scale}
    if moving:  # the velocities turn along the motion: a point of it is not an equilibrium of the state
        listed = ", ".join(f"d{name}/dt = {rate:.6g}" for name, rate in moving.items())
        raise NotSteadyError(
            f"system {form.system.name!r}, formulation {form.label()!r}: the motion is not steady in the "
            f"quasi-velocities ({', '.join(quasi.names)}), which turn with {', '.join(moving)} ({listed}); linearize "
            f"in velocities that do not depend on a coordinate that moves", moving)
    drifting = set(modes.ignorable)
    bad = {name: float(rate) for name, rate in zip(names, ydot)
           if name not in drifting and abs(rate) > tol * scale}
    if bad:
        listed = ", ".join(f"d{name}/dt = {rate:.6g}" for name, rate in bad.items())
        found = f"ignorable coordinates found: {', '.join(modes.ignorable)}" if modes.ignorable else \
            "no ignorable coordinate found"
        raise NotSteadyError(
            f"system {form.system.name!r}, formulation {form.label()!r}: the point is neither an equilibrium nor a "
            f"steady motion: {listed} (expected 0 to {tol:g} x {scale:.3g}; {found}). Choose a steady motion (e.g. a "
            f"member of a state family, system.family(...).state(...)), or a formulation in whose state the motion is "
            f"steady (its velocities may turn with an ignorable coordinate)", bad)
