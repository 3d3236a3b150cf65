"""The shared description of a constrained mechanical system.

Notation (Blajer, *A geometrical framework for modeling and simulation of nonholonomic mechanical
systems*; see docs/notation.md):

    p  (n_p,)      coordinates            p' = A(p) v,  A of shape (n_p, n_v), full column rank
    v  (n_v,)      velocities (possibly quasi-velocities, e.g. body angular velocity)
    M(p) v' + d(p, v) = f(p, v, t, lambda) - C(p, t)^T lambda       (n_v equations)
    Phi(p, t) = 0  m holonomic constraints;   C_h = Phi_p A          (m, n_v)
    C_nh(p, t) v + c_nh(p, t) = 0   l nonholonomic (Pfaffian, possibly affine) constraints
    C = [C_h; C_nh] (m + l, n_v);  C v + c = 0, c = [Phi_t; c_nh];  C v' + xi = 0 (systems.rheonomic)

Sign convention for the multipliers: the constraint force on the system is -C^T lambda. Rows are
written so that each lambda is a physical force or moment (the catalogue names it), e.g. the
holonomic row of a contact is minus the height of the contact point, so lambda is the normal force.
f may depend affinely on lambda (non-ideal constraints such as rolling resistance).
"""
from __future__ import annotations

import types
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Mapping, Sequence

import numpy as np
import sympy as sp

from .dependent_rows import DependentRows
from .display import MarkdownCard
from .errors import SystemDescriptionError, UnknownNameError
from .parameters import Parameter, check_fields, parameter_value
from .rheonomic import TimeDependence

TIME = sp.Symbol("t", real=True)


@dataclass(frozen=True)
class Embedding:
    """Explicit holonomic embedding p = g(q) with reduced coordinates q.

    q' = A_q(q) w relates q to the reduced velocities w (A_q = I unless q carries Euler parameters).
    ``inverse`` gives q = h(p) on the constraint manifold. The velocity map is v = D(q) w with
    D = A^+ g_q A_q (shape (n_v, k), k = n_v - m).

    Rheonomic Phi(p, t) = 0 are embedded by p = g(q, t) (g, h may hold the time): v = D w + A^+ g_t.
    """

    coordinates: tuple          # q symbols, (k_q,)
    g: sp.ImmutableMatrix       # (n_p, 1)
    inverse: sp.ImmutableMatrix  # (k_q, 1), expressions in p
    velocities: tuple = ()      # w symbols, (k,); default q' names
    A_q: sp.ImmutableMatrix | None = None  # (k_q, k); default identity
    unit_norm_blocks: tuple = ()  # index tuples of q that are unit quaternions

    def __post_init__(self):
        q = tuple(self.coordinates)
        object.__setattr__(self, "coordinates", q)
        object.__setattr__(self, "g", sp.ImmutableMatrix(self.g))
        object.__setattr__(self, "inverse", sp.ImmutableMatrix(self.inverse))
        if not self.velocities:
            object.__setattr__(self, "velocities", tuple(sp.Symbol(f"{s.name}_dot", real=True) for s in q))
        if self.A_q is None:
            object.__setattr__(self, "A_q", sp.ImmutableMatrix(sp.eye(len(q))))
        else:
            object.__setattr__(self, "A_q", sp.ImmutableMatrix(self.A_q))

    @property
    def coordinate_names(self):
        return tuple(s.name for s in self.coordinates)

    @property
    def velocity_names(self):
        return tuple(s.name for s in self.velocities)


@dataclass(frozen=True)
class BodyBlock:
    """Where one rigid body's configuration and velocity sit in p and v.

    rotation: 4 indices of p, the Euler parameters (e0, e1, e2, e3) of R (world <- body), also a
    unit-norm block; position: 3 indices of p, the origin of the body frame in world axes;
    angular: 3 indices of v, the angular velocity in body axes; linear: 3 indices of v, the velocity
    of the body-frame origin in body axes (``velocity="twist"``: (angular, linear) is the body-fixed
    twist, the left-trivialized velocity on SE(3)) or in world axes (``velocity="hybrid"``: the
    left-trivialized velocity on SO(3) x R^3). A must hold e' = G(e) omega (G of
    systems.builders.rotations, the factor 1/2 included) and r' = R linear (twist) or r' = linear
    (hybrid) on these blocks (A. Mueller, *Is there an optimal choice of
    configuration space for Lie group integration schemes applied to constrained MBS?*, section 2).
    """

    name: str
    rotation: tuple
    position: tuple
    angular: tuple
    linear: tuple
    velocity: str = "twist"

    def __post_init__(self):
        for name in ("rotation", "position", "angular", "linear"):
            object.__setattr__(self, name, tuple(int(i) for i in getattr(self, name)))

    @property
    def coordinates(self) -> tuple:
        """Indices of p that belong to the body (rotation, then position)."""
        return self.rotation + self.position

    @property
    def velocities(self) -> tuple:
        """Indices of v that belong to the body (angular, then linear)."""
        return self.angular + self.linear


def _column(x) -> sp.ImmutableMatrix:
    if x is None:
        return sp.ImmutableMatrix(0, 1, [])
    m = sp.Matrix(x)
    if m.shape[1] != 1 and m.shape[0] == 1:
        m = m.T
    return sp.ImmutableMatrix(m)


class DegreesOfFreedom:
    """k = n - m and r = n - m - l for anything with n, m and l."""

    @property
    def k(self) -> int:
        """Configuration degrees of freedom n - m."""
        return self.n - self.m

    @property
    def r(self) -> int:
        """Velocity degrees of freedom n - m - l."""
        return self.n - self.m - self.l


@dataclass(frozen=True)
class System(DegreesOfFreedom, TimeDependence, DependentRows, MarkdownCard):
    """An immutable constrained mechanical system (sympy objects plus names and defaults).

    M(p) v' + d(p, v) = f(p, v, t, lambda) - C^T lambda with p' = A(p) v, holonomic rows Phi(p, t) = 0
    and nonholonomic rows C_nh(p, t) v + c_nh(p, t) = 0. Build one with :func:`systems.from_lagrangian`
    or :func:`systems.from_rigid_bodies`, or load one from the catalogue with :func:`systems.load`.
    Construction validates the description and raises one SystemDescriptionError listing every problem.

    Parameters
    ----------
    **fields
        The fields listed under Attributes from ``name`` to ``contacts``, by keyword (a builder
        fills them); ``name`` to ``constraint_names`` are required, the others have defaults.

    Attributes
    ----------
    name : str
        The system's name (for a catalogue system, its catalogue name).
    coordinates, velocities : tuple of Symbol
        p, shape (n_p,), and v, shape (n,), possibly quasi-velocities (e.g. body angular velocity).
    A : Matrix, shape (n_p, n)
        Kinematic matrix, p' = A(p) v, of full column rank (I where v = p'; tall where p holds Euler
        parameters).
    M, d, f : Matrix, shapes (n, n), (n, 1), (n, 1)
        Mass matrix (symmetric, positive definite on the constraint null space), velocity-dependent
        inertia terms and applied forces; f may be affine in the multipliers (non-ideal constraints).
    Phi : Matrix, shape (m, 1)
        Holonomic constraints Phi(p, t) = 0.
    C_nh, c_nh : Matrix, shapes (l, n), (l, 1)
        Nonholonomic (Pfaffian, possibly affine) rows C_nh(p, t) v + c_nh(p, t) = 0; c_nh defaults to
        zero.
    constraint_names : tuple of str, shape (m + l,)
        The reaction each row carries, holonomic rows first.
    multipliers : tuple of Symbol, shape (m + l,)
        lambda, default ``lambda_1`` ... The constraint force on the system is -C^T lambda; rows are
        written so that each lambda is a physical force (N) or moment (N m).
    parameters : tuple of Parameter
        The physical parameters: symbol, default value, unit and meaning.
    parameter_values : tuple of float
        Current values, aligned with ``parameters`` (default: their defaults); change them with
        ``with_parameters``.
    potential : Expr
        V(p); the energy is v^T M v / 2 + V, in J.
    default_p, default_v : tuple of Expr
        The default state, expressions in the parameters (``default_state`` evaluates them).
    embedding : Embedding or None
        Explicit holonomic embedding p = g(q) with reduced coordinates q.
    independent_velocities : tuple of str
        Default choice of u (names of w or v components).
    unit_norm_blocks : tuple of tuple of int
        Index tuples of p holding unit quaternions.
    bodies : tuple of BodyBlock
        Rigid-body configurations in p and v.
    description, reference : str
        What the system models, and its source.
    time : Symbol
        The time symbol of rheonomic rows (``systems.TIME``).
    families : tuple of StateFamily
        Initial states named by a few numbers.
    visuals : tuple of Visual
        What the bodies look like, posed by p.
    invariants : tuple of (str, Expr)
        (name, expression in p, v and the parameters): conserved by the motion.
    units : dict
        {name of p, v, q, w or a row: unit}; the rest inferred (``unit_of``).
    contacts : tuple of Contact
        Rows that may open or slide.
    speeds : dict
        {name: expression linear in v with coefficients in p and the parameters}: quasi-velocities
        the system names, for the minimal formulation's independent velocities
        (formulations.coordinates.speeds), e.g. a blade's forward speed.
    n, m, l : int
        Numbers of velocities (= number of coordinates unless p holds Euler parameters), holonomic
        and nonholonomic rows.
    k, r : int
        Degrees of freedom: k = n - m configuration, r = n - m - l velocity.
    coordinate_names, velocity_names : tuple of str
        Names of p, shape (n_p,), and of v, shape (n,).
    parameter_names : tuple of str
        Names of the parameters as users pass them (e.g. to ``systems.load``).
    holonomic_names, nonholonomic_names : tuple of str
        ``constraint_names`` of the m holonomic and of the l nonholonomic rows.
    Phi_p, C_h, C : Matrix, shapes (m, n_p), (m, n), (m + l, n)
        Jacobian of Phi, holonomic rows at velocity level C_h = Phi_p A, all rows [C_h; C_nh].

    See Also
    --------
    systems.load : A catalogue system.
    systems.from_lagrangian, systems.from_rigid_bodies, systems.from_sympy : Builders.

    Examples
    --------
    >>> import systems
    >>> disc = systems.load("rolling_disc")
    >>> disc.n, disc.m, disc.l, disc.k, disc.r
    (6, 1, 2, 5, 3)
    >>> disc.velocity_names
    ('v_x', 'v_y', 'v_z', 'omega_1', 'omega_2', 'omega_3')
    >>> disc.holonomic_names, disc.nonholonomic_names
    (('contact normal force',), ('longitudinal friction force', 'lateral friction force'))
    >>> disc.unit_of("omega_1"), disc.unit_of("contact normal force")
    ('rad/s', 'N')
    """

    name: str
    coordinates: tuple            # p, (n_p,) sympy Symbols
    velocities: tuple             # v, (n_v,)
    A: sp.ImmutableMatrix         # (n_p, n_v)
    M: sp.ImmutableMatrix         # (n_v, n_v)
    d: sp.ImmutableMatrix         # (n_v, 1)
    f: sp.ImmutableMatrix         # (n_v, 1), may be affine in the multipliers
    Phi: sp.ImmutableMatrix       # (m, 1)
    C_nh: sp.ImmutableMatrix      # (l, n_v)
    constraint_names: tuple       # (m + l,) the reaction each row carries
    parameters: tuple = ()        # Parameter objects
    potential: sp.Expr = sp.S.Zero  # V(p); energy = v^T M v / 2 + V
    default_p: tuple = ()         # expressions in the parameters
    default_v: tuple = ()
    embedding: Embedding | None = None
    independent_velocities: tuple = ()  # default choice of u (names of w or v components)
    unit_norm_blocks: tuple = ()  # index tuples of p holding unit quaternions
    bodies: tuple = ()            # BodyBlock objects: rigid-body configurations in p and v
    description: str = ""
    reference: str = ""
    multipliers: tuple = ()       # lambda symbols, (m + l,); default lambda_<i>
    parameter_values: tuple = ()  # current values, aligned with parameters; default: defaults
    time: sp.Symbol = TIME
    families: tuple = ()          # StateFamily objects: initial states named by a few numbers
    c_nh: sp.ImmutableMatrix | None = None  # (l, 1) velocity-free term of the nonholonomic rows; default 0
    visuals: tuple = ()           # systems.visuals.Visual objects: what the bodies look like, posed by p
    invariants: tuple = ()        # (name, expression in p, v and the parameters): conserved by the motion
    units: Mapping = None         # {name of p, v, q, w or a row: unit}; the rest inferred (systems.units)
    contacts: tuple = ()          # systems.Contact objects: rows that may open or slide (systems.contacts)
    speeds: Mapping = None        # {name: quasi-velocity y(p) v}: independent velocities by name

    def __post_init__(self):
        object.__setattr__(self, "coordinates", tuple(self.coordinates))
        object.__setattr__(self, "velocities", tuple(self.velocities))
        for name in ("A", "M"):
            object.__setattr__(self, name, sp.ImmutableMatrix(getattr(self, name)))
        for name in ("d", "f", "Phi"):
            object.__setattr__(self, name, _column(getattr(self, name)))
        C_nh = sp.Matrix(self.C_nh) if self.C_nh is not None else sp.zeros(0, len(self.velocities))
        if C_nh.shape == (0, 0):
            C_nh = sp.zeros(0, len(self.velocities))
        object.__setattr__(self, "C_nh", sp.ImmutableMatrix(C_nh))
        c_nh = _column(self.c_nh) if self.c_nh is not None else sp.ImmutableMatrix(sp.zeros(C_nh.shape[0], 1))
        object.__setattr__(self, "c_nh", c_nh)
        object.__setattr__(self, "constraint_names", tuple(self.constraint_names))
        object.__setattr__(self, "parameters", tuple(self.parameters))
        check_fields(self)
        object.__setattr__(self, "potential", sp.sympify(self.potential))
        object.__setattr__(self, "default_p", tuple(sp.sympify(x) for x in self.default_p))
        object.__setattr__(self, "default_v", tuple(sp.sympify(x) for x in self.default_v))
        object.__setattr__(self, "independent_velocities", tuple(self.independent_velocities))
        object.__setattr__(self, "unit_norm_blocks", tuple(tuple(b) for b in self.unit_norm_blocks))
        object.__setattr__(self, "bodies", tuple(self.bodies))
        object.__setattr__(self, "families", tuple(self.families))
        object.__setattr__(self, "visuals", tuple(self.visuals))
        object.__setattr__(self, "contacts", tuple(self.contacts))
        object.__setattr__(self, "invariants", self._checked_invariants())
        object.__setattr__(self, "units", dict(self.units or {}))  # a copy (a mapping proxy would not pickle)
        names = {s.name: s for s in (*self.coordinates, *self.velocities)} | {p.name: p.symbol for p in self.parameters}
        object.__setattr__(self, "speeds", {str(k): sp.sympify(e, locals=names) for k, e in
                                            dict(self.speeds or {}).items()})
        if not self.multipliers:
            count = self.Phi.shape[0] + self.C_nh.shape[0]
            object.__setattr__(self, "multipliers", tuple(sp.symbols(f"lambda_1:{count + 1}", real=True)))
        if not self.parameter_values:
            object.__setattr__(self, "parameter_values", tuple(float(p.default) for p in self.parameters))
        else:
            object.__setattr__(self, "parameter_values", tuple(float(x) for x in self.parameter_values))
        from .validation import validate  # local: validation needs the numeric model of this class

        problems = validate(self)
        if problems:
            raise SystemDescriptionError(self.name, problems)

    # -- sizes ---------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of velocities n (= number of coordinates unless p holds Euler parameters)."""
        return len(self.velocities)

    @property
    def m(self) -> int:
        return self.Phi.shape[0]

    @property
    def l(self) -> int:  # noqa: E743 - the notation of the design
        return self.C_nh.shape[0]

    @property
    def coordinate_names(self) -> tuple:
        return tuple(s.name for s in self.coordinates)

    @property
    def velocity_names(self) -> tuple:
        return tuple(s.name for s in self.velocities)

    @property
    def parameter_names(self) -> tuple:
        return tuple(p.name for p in self.parameters)

    @property
    def holonomic_names(self) -> tuple:
        return self.constraint_names[: self.m]

    @property
    def nonholonomic_names(self) -> tuple:
        return self.constraint_names[self.m:]

    # -- derived symbolic pieces ---------------------------------------------------------------
    @cached_property
    def Phi_p(self) -> sp.ImmutableMatrix:
        """Jacobian of Phi with respect to p, shape (m, n_p)."""
        return sp.ImmutableMatrix(self.Phi.jacobian(self.coordinates)) if self.m else sp.ImmutableMatrix(
            sp.zeros(0, len(self.coordinates)))

    @cached_property
    def C_h(self) -> sp.ImmutableMatrix:
        """Holonomic rows at velocity level, C_h = Phi_p A, shape (m, n_v)."""
        return sp.ImmutableMatrix(self.Phi_p * self.A) if self.m else sp.ImmutableMatrix(sp.zeros(0, self.n))

    @cached_property
    def C(self) -> sp.ImmutableMatrix:
        """All constraint rows [C_h; C_nh], shape (m + l, n_v)."""
        return sp.ImmutableMatrix(sp.Matrix.vstack(sp.Matrix(self.C_h), sp.Matrix(self.C_nh)))

    @cached_property
    def energy_expression(self) -> sp.Expr:
        v = sp.Matrix(self.velocities)
        return (v.T * self.M * v)[0, 0] / 2 + self.potential

    def _checked_invariants(self) -> tuple:
        """``invariants`` as ((name, expression), ...): each entry a pair, its name new (not a
        coordinate, velocity, row or another invariant), a text expression read in the system's own
        symbols; SystemDescriptionError naming every bad entry."""
        own = {s.name: s for s in (*self.coordinates, *self.velocities, *(p.symbol for p in self.parameters))}
        taken = set(own) | set(self.constraint_names)
        out, problems = [], []
        for i, entry in enumerate(self.invariants):
            if not (isinstance(entry, (tuple, list)) and len(entry) == 2 and isinstance(entry[0], str)):
                problems.append(f"invariants[{i}] got {entry!r:.80} but expected a pair (name, expression)")
                continue
            name, expr = entry
            if name in taken:
                problems.append(f"invariants[{i}] is named {name!r}, which is already a symbol, row or invariant of "
                                f"the system; give it its own name")
            taken.add(name)
            try:
                out.append((name, sp.sympify(expr, locals=own)))
            except (sp.SympifyError, TypeError) as exc:
                problems.append(f"invariant {name!r} got {expr!r:.80} but expected an expression in p, v and the "
                                f"parameters ({exc})")
        if problems:
            raise SystemDescriptionError(self.name, problems)
        return tuple(out)

    def __getstate__(self):
        """The description as pickled (to a process pool, a background compile): without the
        functions worked out from it on demand (lambdified, they do not pickle; the process that
        unpickles it works them out again)."""
        return {name: value for name, value in self.__dict__.items() if not isinstance(value, types.FunctionType)}

    @cached_property
    def _invariant_function(self):
        return sp.lambdify([self.coordinates, self.velocities],
                           [sp.sympify(e).subs(self.parameter_map) for _, e in self.invariants], modules="numpy")

    def invariant_values(self, P, V) -> dict:
        """{name: values (k,)} of the declared invariants at the states P (k, n_p), V (k, n)."""
        if not self.invariants:
            return {}
        P, V = np.asarray(P, float), np.asarray(V, float)
        k = len(P)
        values = self._invariant_function(P.T, V.T)  # each entry (k,) or a constant
        return {name: np.broadcast_to(np.asarray(x, float), (k,)).copy()
                for (name, _), x in zip(self.invariants, values)}

    def unit_of(self, name: str) -> str:
        """The unit of a coordinate, velocity or reaction (row name) — declared in ``units`` or found
        by dimensional analysis from the parameters' units (systems.units) — or of a parameter or a
        state family's variable, as given there; "?" where none says."""
        if name in self._units:
            return self._units[name]
        for parameter in self.parameters:
            if name in (parameter.name, parameter.alias):
                return parameter.unit or "?"
        for family in self.families:
            for variable in family.variables:
                if variable.name == name:
                    return variable.unit or "?"
        return "?"

    @cached_property
    def _units(self) -> dict:
        from .units import units

        return units(self)

    @property
    def parameter_map(self) -> dict:
        """{symbol: value} for the current parameter values."""
        return {p.symbol: val for p, val in zip(self.parameters, self.parameter_values)}

    @property
    def parameter_dict(self) -> dict:
        """{name: value} for the current parameter values."""
        return {p.name: val for p, val in zip(self.parameters, self.parameter_values)}

    @cached_property
    def F_lambda(self) -> sp.ImmutableMatrix:
        """f = f0 + F_lambda lambda: the part of f linear in the multipliers, shape (n_v, m + l)
        (zero for ideal constraints)."""
        lam = list(self.multipliers)
        return sp.ImmutableMatrix(sp.Matrix(self.f).jacobian(lam) if lam else sp.zeros(self.n, 0))

    @cached_property
    def f0(self) -> sp.ImmutableMatrix:
        """f = f0 + F_lambda lambda: the forces at lambda = 0, shape (n_v, 1)."""
        return sp.ImmutableMatrix(sp.Matrix(self.f).xreplace({x: 0 for x in self.multipliers}))

    @cached_property
    def is_nonideal(self) -> bool:
        """True when f depends on the multipliers (and so needs the coupled solve)."""
        return bool(self.f.free_symbols & set(self.multipliers))

    @property
    def made_of_bodies(self) -> bool:
        """True where rigid-body blocks cover every coordinate and velocity (Lie-group integration applies)."""
        covered_p = sorted(i for b in self.bodies for i in b.coordinates)
        covered_v = sorted(i for b in self.bodies for i in b.velocities)
        return bool(self.bodies) and covered_p == list(range(len(self.coordinates))) and \
            covered_v == list(range(self.n))

    # -- numeric model -------------------------------------------------------------------------
    @property
    def numeric(self):
        """Compiled numeric functions of the primitive pieces (cached per symbolic structure)."""
        from .numeric.model import compile_system

        return compile_system(self)

    @property
    def params(self) -> np.ndarray:
        return np.asarray(self.parameter_values, dtype=float)

    # -- parameters ----------------------------------------------------------------------------
    def with_parameters(self, **values) -> "System":
        """A copy with some parameter values changed (names as in ``parameter_names``)."""
        known = self.parameter_names
        for name in values:
            if name not in known:
                raise UnknownNameError(f"parameter of system {self.name!r}", name, known)
        checked = {p.name: parameter_value(self.name, p, values[p.name]) for p in self.parameters if p.name in values}
        new = tuple(checked.get(p.name, val) for p, val in zip(self.parameters, self.parameter_values))
        try:
            return replace(self, parameter_values=new)
        except SystemDescriptionError as exc:
            given = ", ".join(f"{k} = {v:g}" for k, v in checked.items())
            raise SystemDescriptionError(self.name, [f"with {given} (defaults: " + ", ".join(
                f"{p.name} = {p.default:g} {p.unit}".rstrip() for p in self.parameters if p.name in checked)
                + f") the description is not valid; choose other values of {', '.join(checked)}"]
                + exc.problems) from None

    # -- states --------------------------------------------------------------------------------
    def default_state(self):
        """The default state (p, v), evaluated at the current parameter values.

        The catalogue's (or builder's) ``default_p`` and ``default_v``, expressions in the
        parameters, substituted once per System; every call returns fresh copies.

        Returns
        -------
        p : ndarray, shape (n_p,)
            Coordinates, float, in their units (``unit_of``: m or rad for most).
        v : ndarray, shape (n,)
            Velocities, float (m/s or rad/s for most).

        See Also
        --------
        systems.System.consistent_state : The nearest state that meets the constraints.

        Examples
        --------
        >>> import systems
        >>> disc = systems.load("rolling_disc")
        >>> p, v = disc.default_state()
        >>> p.shape, v.shape
        ((6,), (6,))
        >>> dict(zip(disc.coordinate_names, p.round(3).tolist()))
        {'x': 0.0, 'y': 0.0, 'z': 0.478, 'psi': 0.0, 'theta': 0.3, 'phi': 0.0}
        """
        p, v = self._default_state
        return p.copy(), v.copy()

    @cached_property
    def _default_state(self):
        """default_state, substituted once per System (tens of ms of sympy for a large one)."""
        subs = self.parameter_map
        p = np.array([float(sp.sympify(x).subs(subs)) for x in self.default_p], dtype=float)
        v = np.array([float(sp.sympify(x).subs(subs)) for x in self.default_v], dtype=float)
        return p, v

    def family(self, name: str | None = None):
        """The state family ``name`` (systems.families.StateFamily; default: the first one)."""
        known = tuple(f.name for f in self.families)
        if not known:
            raise UnknownNameError(f"state family of system {self.name!r} (it declares none)", name or "", ())
        if name is None:
            return self.families[0]
        if name not in known:
            raise UnknownNameError(f"state family of system {self.name!r}", name, known)
        return self.families[known.index(name)]

    def residuals(self, p, v, t=0.0):
        """(Phi(p, t), C(p, t) v + c(p, t)): position residuals (m,) and velocity residuals (m + l,)
        at time t (s)."""
        num = self.numeric
        p = np.asarray(p, dtype=float)
        v = np.asarray(v, dtype=float)
        Phi, _, C, c = num.constraint_terms(p, self.params, t)
        return Phi, C @ v + c

    def energy(self, p, v) -> float:
        return float(self.numeric.energy(np.asarray(p, float), np.asarray(v, float), self.params))

    def consistent_state(self, p_guess, v_guess, fix: Sequence[str] = (), tol: float = 1e-13, t: float = 0.0):
        """Nearest consistent state at time t (s): p onto Phi(p, t) = 0, then v onto C v + c = 0.

        Components named in ``fix`` (coordinate or velocity names) are held; the others move least
        in the kinetic-energy metric: p by Newton iteration, v by the M-orthogonal projection
        v <- v - M^-1 C^T (C M^-1 C^T)^-1 (C v + c). Unit-quaternion blocks of p are renormalized.

        Parameters
        ----------
        p_guess : array_like, shape (n_p,)
            Guess of the coordinates, finite (units: ``unit_of``, m or rad for most).
        v_guess : array_like, shape (n,)
            Guess of the velocities, finite (m/s or rad/s for most).
        fix : sequence of str, optional
            Names of the coordinates and velocities held at their guessed values (a single str is one
            name); default none.
        tol : float, optional
            Bound on max abs(Phi), relative to 1 + max abs(p_guess) (default 1e-13).
        t : float, optional
            Time in s at which time-dependent rows are evaluated (default 0).

        Returns
        -------
        p : ndarray, shape (n_p,)
            Coordinates with Phi(p, t) = 0.
        v : ndarray, shape (n,)
            Velocities with C(p, t) v + c(p, t) = 0.

        Raises
        ------
        InconsistentStateError
            With the remaining residual, where no state meets the constraints with the named
            components held; also for guesses of the wrong shape, not finite, or singular.
        ArgumentTypeError
            A guess that is not an array of numbers.
        UnknownNameError
            A name in ``fix`` that is neither a coordinate nor a velocity.

        See Also
        --------
        systems.System.residuals : Phi and C v + c at a state.
        systems.System.state_from_q : A state through the embedding p = g(q).

        Examples
        --------
        >>> import systems
        >>> disc = systems.load("rolling_disc")
        >>> p0, v0 = disc.default_state()
        >>> p, v = disc.consistent_state(p0 + 0.01, v0 + 0.1, fix=("theta", "omega_3"))
        >>> Phi, Cv = disc.residuals(p, v)
        >>> bool(abs(Phi).max() < 1e-12 and abs(Cv).max() < 1e-12)
        True
        >>> print(round(p[disc.coordinate_names.index("theta")], 6))
        0.31
        """
        from .state import consistent_state

        return consistent_state(self, p_guess, v_guess, fix=fix, tol=tol, t=t)

    def state_from_q(self, q, qdot, t=0.0):
        """The state (p, v) from reduced coordinates q and reduced velocities w, through the embedding.

        p = g(q, t) and v = D w + d_0 with D = A^+ g_q A_q and d_0 = A^+ g_t (zero unless the
        embedding moves). The state meets the holonomic rows; it meets the nonholonomic rows where
        w is chosen so.

        Parameters
        ----------
        q : array_like, shape (k_q,)
            Reduced coordinates, finite, in the order of ``embedding.coordinate_names``.
        qdot : array_like, shape (k,)
            Reduced velocities w, finite, in the order of ``embedding.velocity_names``.
        t : float, optional
            Time in s (default 0).

        Returns
        -------
        p : ndarray, shape (n_p,)
            Coordinates.
        v : ndarray, shape (n,)
            Velocities.

        Raises
        ------
        ArgumentError, ArgumentTypeError
            ``q`` or ``qdot`` is not a finite array of the embedding's size (naming the entry), or
            ``t`` is not a number.
        ValueError
            The system has no embedding (use ``consistent_state``).

        Examples
        --------
        >>> import systems
        >>> pendulum = systems.load("pendulum_cartesian")
        >>> pendulum.embedding.coordinate_names, pendulum.embedding.velocity_names
        (('angle',), ('angle_dot',))
        >>> p, v = pendulum.state_from_q([0.5], [1.0])
        >>> p.round(4).tolist(), v.round(4).tolist()
        ([0.4794, -0.8776], [0.8776, 0.4794])
        """
        from .state import state_from_q

        return state_from_q(self, q, qdot, t)

    def index_of(self, name: str) -> tuple:
        """('p', i) or ('v', i) for a coordinate or velocity name."""
        if name in self.coordinate_names:
            return "p", self.coordinate_names.index(name)
        if name in self.velocity_names:
            return "v", self.velocity_names.index(name)
        raise UnknownNameError(f"coordinate or velocity of system {self.name!r}", name,
                               self.coordinate_names + self.velocity_names)

    def summary(self) -> str:
        """A one-paragraph description of sizes and constraints."""
        lines = [
            f"{self.name}: n = {self.n} velocities ({len(self.coordinates)} coordinates), "
            f"m = {self.m} holonomic, l = {self.l} nonholonomic constraints; "
            f"k = n - m = {self.k}, r = n - m - l = {self.r} degrees of freedom" + self.redundancy_note(),
            f"  p = ({', '.join(self.coordinate_names)})",
            f"  v = ({', '.join(self.velocity_names)})",
        ]
        for i, name in enumerate(self.constraint_names):
            kind = "holonomic" if i < self.m else "nonholonomic"
            lines.append(f"  row {i + 1} ({kind}): {name}")
        for contact in self.contacts:
            mu = contact.friction_coefficient(self)
            friction = ("" if not contact.tangential else f"; friction: {', '.join(contact.tangential)} "
                        + ("(perfectly rough)" if mu is None else f"within mu = {mu:g} x normal"))
            lines.append(f"  contact {contact.name!r}: normal {contact.normal} >= 0{friction}")
        return "\n".join(lines)

    def __repr__(self):
        return f"<System {self.name!r} n={self.n} m={self.m} l={self.l}>"

    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other
