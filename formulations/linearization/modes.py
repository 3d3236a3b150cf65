"""The result of a linearization and the labelling of its modes.

The state matrix A of a steady motion splits into the ignorable coordinates I — those on which no
other rate depends, A[rest, I] = 0, which drift along the motion — and the rest. Each ignorable
coordinate carries an eigenvalue of A[I, I] (zero where its rate depends only on the rest). In the
rest, every left null vector l (l^T A_rest = 0) is a conserved quantity l^T y (a conserved speed
where l is one component), with an eigenvalue zero; the range of A_rest lies in their common null
space, so the remaining, non-trivial eigenvalues are those of A_rest restricted to it.

Both splits are structural: A comes from exact derivatives of the description, so an entry or a
singular value that is zero in exact arithmetic is zero up to round-off (ROUNDOFF n eps |A|), while
a dynamic eigenvalue near a critical parameter value, small as it is, stays far above that (the
bicycle 8.5e-8 m/s above its capsize speed: a singular value of 8.8e-9 |A|, round-off 1e-14 |A|).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from systems.errors import ArgumentError, UnknownNameError

KINDS = ("dynamic", "conserved", "ignorable")
ROUNDOFF = 64.0  # structural zeros lie below ROUNDOFF * n * eps * max(1, |A|)


@dataclass(frozen=True)
class Modes:
    """Eigenvalues (n_y,), eigenvectors in the state y (n_y, n_y; columns), their kinds and labels."""

    eigenvalues: np.ndarray
    vectors: np.ndarray
    kinds: tuple
    labels: tuple
    ignorable: tuple        # names of the ignorable coordinates
    conserved: tuple        # labels of the conserved quantities, e.g. "phi_dot" or "psi_dot - 0.5 theta"


def _frozen(x):
    x = np.array(x)
    x.setflags(write=False)
    return x


def _combination(row, names):
    terms = [(c, name) for c, name in zip(row, names) if abs(c) > 1e-9]
    text = ""
    for c, name in terms:
        sign = "-" if c < 0 else "+"
        size = "" if abs(abs(c) - 1) < 1e-12 else f"{abs(c):.6g} "
        text += f" {sign} {size}{name}" if text else f"{'-' if c < 0 else ''}{size}{name}"
    return text


def _echelon(X, tol=1e-9):
    """The reduced row echelon form of X (rows independent), numerically: each row leads with a 1 in
    a column of its own (the first column, in the state's order, where it can)."""
    X = np.array(X, float)
    row = 0
    for col in range(X.shape[1]):
        if row == X.shape[0]:
            break
        pivot = row + int(np.argmax(np.abs(X[row:, col])))
        if abs(X[pivot, col]) <= tol:
            continue
        X[[row, pivot]] = X[[pivot, row]]
        X[row] /= X[row, col]
        others = [i for i in range(X.shape[0]) if i != row]
        X[others] -= np.outer(X[others, col], X[row])
        row += 1
    X[np.abs(X) < 1e-12] = 0.0
    return X


def _ignorable_set(A, names, kind, given, threshold):
    coordinates = [i for i, k in enumerate(kind) if k == "q"]
    if given is not None:
        given = (given,) if isinstance(given, str) else tuple(given)
        chosen = []
        for name in given:
            if name not in names:
                raise UnknownNameError("coordinate of the linearized state", name, names, argument="ignorable")
            if names.index(name) not in coordinates:
                raise ArgumentError(f"ignorable got {name!r}, a velocity of the state, but expected coordinates "
                                    f"({', '.join(names[i] for i in coordinates)})", "ignorable")
            chosen.append(names.index(name))
        rest = [i for i in range(len(names)) if i not in chosen]
        for j in chosen:
            coupled = [names[i] for i in rest if abs(A[i, j]) > threshold]
            if coupled:
                raise ArgumentError(f"ignorable got {names[j]!r}, but the rates of {', '.join(coupled)} depend on it "
                                    f"(A entries {', '.join(f'{A[names.index(c), j]:.3g}' for c in coupled)}): it is "
                                    f"not ignorable at this point", "ignorable")
        return sorted(chosen)
    chosen = set(coordinates)
    while True:
        rest = [i for i in range(len(names)) if i not in chosen]
        drop = {j for j in chosen if rest and np.max(np.abs(A[rest, j])) > threshold}
        if not drop:
            return sorted(chosen)
        chosen -= drop


def split_modes(A, names, kind, *, ignorable=None, conserved=None, tol=None) -> Modes:
    """Label the eigenvalues of A (see the module docstring). kind: "q" or "u" per state component;
    ignorable: names (default: found); conserved: how many conserved quantities (default: the
    left null space of the rest to tol x max(1, |A|), tol by default the round-off of exact
    derivatives, ROUNDOFF n eps)."""
    names = tuple(names)
    n_y = len(names)
    tol = ROUNDOFF * max(n_y, 1) * np.finfo(float).eps if tol is None else tol
    threshold = tol * max(1.0, np.max(np.abs(A), initial=0.0))
    I = _ignorable_set(A, names, kind, ignorable, threshold)
    rest = [i for i in range(n_y) if i not in I]
    A_r, A_Ir, A_II = A[np.ix_(rest, rest)], A[np.ix_(I, rest)], A[np.ix_(I, I)]
    values, vectors, kinds, labels = [], [], [], []
    conserved_labels = ()
    if rest:
        U, s, Vt = np.linalg.svd(A_r)
        count = int(np.sum(s <= threshold)) if conserved is None else int(conserved)
        if not 0 <= count <= len(rest):
            raise ArgumentError(f"conserved got {conserved} but the state has {len(rest)} components besides the "
                                f"ignorable coordinates", "conserved")
        keep = U[:, : len(rest) - count]
        lam, Y = np.linalg.eig(keep.T @ A_r @ keep) if keep.shape[1] else (np.zeros(0), np.zeros((0, 0)))
        order = np.lexsort((-lam.imag, -lam.real))
        for k, j in enumerate(order):
            x = np.zeros(n_y, complex)
            x_r = keep @ Y[:, j]
            x[rest] = x_r
            if I:
                x[I] = np.linalg.lstsq(lam[j] * np.eye(len(I)) - A_II, A_Ir @ x_r, rcond=None)[0]
            values.append(lam[j]), vectors.append(x / np.linalg.norm(x)), kinds.append("dynamic")
            labels.append(f"mode {k + 1}")
        if count:
            rows = _echelon(U[:, len(rest) - count:].T)
            conserved_labels = tuple(_combination(row, [names[i] for i in rest]) for row in rows)
            for label, v in zip(conserved_labels, Vt[len(rest) - count:]):
                x = np.zeros(n_y, complex)
                x[rest] = v
                values.append(0j), vectors.append(x), kinds.append("conserved"), labels.append(f"conserved {label}")
    drift = np.linalg.eigvals(A_II) if I else np.zeros(0)
    for j, value in zip(I, drift):
        x = np.zeros(n_y, complex)
        x[j] = 1.0
        values.append(complex(value)), vectors.append(x), kinds.append("ignorable"), labels.append(f"{names[j]} drifts")
    return Modes(_frozen(np.array(values, complex)), _frozen(np.array(vectors).T if vectors else np.zeros((0, 0))),
                 tuple(kinds), tuple(labels), tuple(names[i] for i in I), conserved_labels)


@dataclass(frozen=True)
class LinearEquations:
    """The linear equations d(delta y)/dt = A delta y + B delta u in sympy (parameters as symbols)."""

    system_name: str
    formulation: str
    state_names: tuple
    input_names: tuple
    A: sp.ImmutableMatrix
    B: sp.ImmutableMatrix

    def __post_init__(self):
        object.__setattr__(self, "A", sp.ImmutableMatrix(self.A))
        object.__setattr__(self, "B", sp.ImmutableMatrix(self.B))

    def latex(self) -> str:
        """The equations in LaTeX (an equation with the state vector written out)."""
        y = sp.Matrix([sp.Symbol(rf"\delta {sp.latex(sp.Symbol(n))}") for n in self.state_names])
        text = rf"\frac{{d}}{{dt}} {sp.latex(y)} = {sp.latex(self.A)} {sp.latex(y)}"
        if self.input_names:
            u = sp.Matrix([sp.Symbol(rf"\delta {sp.latex(sp.Symbol(n))}") for n in self.input_names])
            text += rf" + {sp.latex(self.B)} {sp.latex(u)}"
        return text

    def characteristic_polynomial(self, symbol=sp.Symbol("s")):
        """det(s I - A), factored."""
        return sp.factor(self.A.charpoly(symbol).as_expr())

    def __str__(self):
        return (f"linear equations of {self.system_name!r} ({self.formulation}), y = ({', '.join(self.state_names)}):\n"
                f"A = {self.A}" + (f"\nB = {self.B}" if self.input_names else ""))


@dataclass(frozen=True)
class Linearization:
    """A linearization about an equilibrium or a steady motion, as returned by :func:`linearize`.

    The linear equations d(δy)/dt = A δy + B δu, with y the formulation's independent state
    (``state_names``) and u the inputs (``input_names``, parameters), and their eigenvalues, each labelled
    ("mode 1", ..., "conserved phi_dot", "x drifts") and of a kind: dynamic, conserved or ignorable.
    Zero modes carry the direction of the neighbouring steady motion. Immutable; its arrays are read-only.

    Attributes
    ----------
    A : ndarray, shape (n_y, n_y)
        The state matrix: entry (i, j) is d(rate of y_i)/d(y_j), in the unit of y_i per s over the unit of y_j
        (1/s where the two share a unit).
    B : ndarray, shape (n_y, n_u)
        The input matrix: entry (i, k) is d(rate of y_i)/d(u_k), in the unit of y_i per s over the unit of u_k
        (per N, per N m, ...).
    state_names : tuple of str
        The names of the components of y (n_y of them), e.g. ("angle", "angle_dot").
    input_names : tuple of str
        The names of the inputs u (n_u of them), parameters that enter only M, d and f.
    eigenvalues : ndarray of complex, shape (n_y,)
        The eigenvalues of A, in 1/s (imaginary parts in rad/s): the dynamic ones by decreasing real part, then
        the conserved quantities' zeros, then the ignorable coordinates' eigenvalues.
    eigenvectors : ndarray of complex, shape (n_p + n, n_y)
        The modes as (δp, δv) over ``dependent_names``, one column per eigenvalue.
    labels : tuple of str
        The label of each eigenvalue: "mode 1", ..., "conserved phi_dot", "x drifts".
    kinds : tuple of str
        The kind of each eigenvalue: "dynamic", "conserved" or "ignorable".
    nontrivial : ndarray of complex
        The eigenvalues of kind "dynamic" (neither a drift nor a conserved quantity), in 1/s.
    ignorable : tuple of str
        The ignorable coordinates: those on which no other rate depends; they may drift along the motion.
    drift : dict
        {ignorable coordinate: its rate along the motion}, in its unit per s.
    conserved : tuple of str
        The conserved quantities of the linear motion, as combinations of the state, e.g. "psi_dot - 0.5 theta".
    residual : dict
        {state name: rate at the point}, in its unit per s (zero but for the ignorable coordinates, which drift).
    P : ndarray, shape (n_p + n, n_y)
        The tangent map: (δp, δv) = P δy.
    p0, v0 : ndarray
        The point: coordinates (n_p,) and velocities (n,), in their units.
    t : float
        The time of the point, in s.
    dependent_names : tuple of str
        The names of the coordinates and velocities, the rows of ``P`` and ``eigenvectors``.
    system_name, formulation, method : str
        The system's name, the formulation's label and "numeric" or "symbolic".
    modes : Modes
        The eigenvalues, their eigenvectors in y (columns), kinds and labels.

    See Also
    --------
    linearize : Makes one.
    LinearEquations : The linear equations in sympy, from :meth:`Linearization.equations`.

    Examples
    --------
    The Chaplygin sleigh going straight at 1 m/s: its position and heading drift, its speed is conserved,
    and its one dynamic mode decays at -m a u / (I + m a²):

    >>> import numpy as np, formulations
    >>> lin = formulations.linearize("chaplygin_sleigh", [0.0, 0.0, 0.0], [1.0, 0.0, 0.0])
    >>> lin.state_names
    ('x', 'y', 'theta', 'x_dot', 'theta_dot')
    >>> lin.labels
    ('mode 1', 'conserved x_dot', 'x drifts', 'y drifts', 'theta drifts')
    >>> lin.ignorable, lin.conserved, lin.drift
    (('x', 'y', 'theta'), ('x_dot',), {'x': 1.0, 'y': 0.0, 'theta': 0.0})
    >>> np.round(lin.nontrivial.real, 6).tolist()  # 1/s
    [-1.428571]
    >>> lin.eigenvectors.shape, sorted(lin.mode("mode 1"))
    ((6, 5), ['theta', 'theta_dot', 'x', 'x_dot', 'y', 'y_dot'])
    """

    system_name: str
    formulation: str
    method: str
    state_names: tuple
    A: np.ndarray
    B: np.ndarray
    input_names: tuple
    p0: np.ndarray
    v0: np.ndarray
    t: float
    residual: dict
    modes: Modes
    P: np.ndarray
    dependent_names: tuple
    _equations: object = field(default=None, repr=False, compare=False)
    _make_equations: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        for name in ("A", "B", "p0", "v0", "P"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    @property
    def eigenvalues(self) -> np.ndarray:
        return self.modes.eigenvalues

    @property
    def eigenvectors(self) -> np.ndarray:
        return _frozen(self.P @ self.modes.vectors) if self.modes.vectors.size else _frozen(self.modes.vectors)

    @property
    def labels(self) -> tuple:
        return self.modes.labels

    @property
    def kinds(self) -> tuple:
        return self.modes.kinds

    @property
    def ignorable(self) -> tuple:
        """The ignorable coordinates (they may drift along the motion)."""
        return self.modes.ignorable

    @property
    def drift(self) -> dict:
        """{ignorable coordinate: its rate along the motion, in its unit per s}."""
        return {name: self.residual[name] for name in self.ignorable}

    @property
    def conserved(self) -> tuple:
        """The conserved quantities of the linear motion, as combinations of the state."""
        return self.modes.conserved

    @property
    def nontrivial(self) -> np.ndarray:
        """The eigenvalues of kind "dynamic" (neither a drift nor a conserved quantity), in 1/s."""
        return self.select("dynamic")

    def select(self, kind_or_label: str) -> np.ndarray:
        """The eigenvalues of a kind (dynamic, conserved, ignorable) or of one label ("x drifts")."""
        if kind_or_label in KINDS:
            chosen = [i for i, k in enumerate(self.kinds) if k == kind_or_label]
        elif kind_or_label in self.labels:
            chosen = [self.labels.index(kind_or_label)]
        else:
            raise UnknownNameError("mode kind or label", kind_or_label, KINDS + self.labels)
        return _frozen(self.eigenvalues[chosen])

    def mode(self, label: str) -> dict:
        """{dependent coordinate or velocity name: component} of the mode ``label``."""
        if label not in self.labels:
            raise UnknownNameError("mode label", label, self.labels)
        return dict(zip(self.dependent_names, self.eigenvectors[:, self.labels.index(label)]))

    def equations(self) -> LinearEquations:
        """The equations in sympy with the parameters as symbols (derived now where method="numeric")."""
        return self._equations if self._equations is not None else self._make_equations()

    def __str__(self):
        lines = [f"linearization of {self.system_name!r} ({self.formulation}, {self.method}) about "
                 f"{', '.join(f'{n}={x:.6g}' for n, x in zip(self.dependent_names, np.concatenate([self.p0, self.v0])))}",
                 f"  state y = ({', '.join(self.state_names)})"]
        for value, label in zip(self.eigenvalues, self.labels):
            lines.append(f"  {label:>40}: {value.real:+.10g} {value.imag:+.10g}j")
        return "\n".join(lines)
