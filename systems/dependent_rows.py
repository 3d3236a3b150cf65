"""Redundant (dependent) constraint rows: which rows of C are combinations of the others.

A mechanism such as Bricard's or a parallel four-bar has more constraint rows than independent
ones: rank C < m + l. The dependent rows are found by QR factorization with column pivoting of
C^T (Golub & Van Loan, *Matrix Computations*, 5.4.1): the pivot order lists the rows of C from the
most to the least independent, and a row is dependent where the diagonal of R falls below
``RANK_RTOL`` times the largest. The rows named dependent are the last ones in that order (any
choice that leaves an independent set is as good; this one keeps the best conditioned rows).

The mobility compares the Gruebler-Kutzbach count n - m - l (one degree of freedom removed per
row) with the actual number of velocity degrees of freedom n - rank C.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.linalg import qr

RANK_RTOL = 1e-10  # a row is dependent where |R_ii| <= RANK_RTOL * max |R_jj| (C^T = Q R P^T)


@dataclass(frozen=True)
class Redundancy:
    """Rank and dependent rows of the constraint matrix C (m + l, n) at one configuration.

    rank: numerical rank of C at tolerance ``tolerance`` (relative to the largest pivot);
    independent, dependent: names of the rows kept and of the rows that are combinations of them;
    independent_rows: their indices into C (sorted); gruebler: n - m - l; mobility: n - rank
    (velocity degrees of freedom); holonomic_rank: rank of the holonomic rows alone (Phi_p A).
    """

    system_name: str
    n: int
    rows: int
    rank: int
    holonomic_rank: int
    independent: tuple
    dependent: tuple
    independent_rows: tuple
    tolerance: float = RANK_RTOL

    @property
    def redundant(self) -> int:
        """Number of dependent rows, m + l - rank."""
        return self.rows - self.rank

    @property
    def gruebler(self) -> int:
        """The Gruebler-Kutzbach count n - (m + l): degrees of freedom if every row were independent."""
        return self.n - self.rows

    @property
    def mobility(self) -> int:
        """Actual velocity degrees of freedom n - rank C."""
        return self.n - self.rank

    def text(self) -> str:
        lines = [f"Redundancy of {self.system_name}: rank C = {self.rank} of {self.rows} rows "
                 f"(QR with column pivoting of C^T, |R_ii| <= {self.tolerance:.0e} max |R_jj| counted as zero)",
                 f"  mobility: Gruebler count n - rows = {self.n} - {self.rows} = {self.gruebler}, "
                 f"actual n - rank = {self.n} - {self.rank} = {self.mobility}"]
        if self.dependent:
            lines.append(f"  {self.redundant} dependent row{'s' if self.redundant > 1 else ''}: "
                         f"{', '.join(self.dependent)}; their multipliers and reactions are not unique "
                         f"(minimum-norm values are reported)")
        else:
            lines.append("  no dependent rows")
        return "\n".join(lines)

    __str__ = text


def independent_rows(C, tol: float = RANK_RTOL, scale: float = 0.0):
    """(rank, order): numerical rank of C (c, n) and the row indices in pivot order (QR with column
    pivoting of C^T); the first ``rank`` indices are an independent set. The one row-pivoting rule
    of the project: a row counts where its pivot |R_ii| exceeds tol * max(|R_00|, scale) (scale: an
    absolute size below which nothing counts, for rows that may vanish as a whole)."""
    c = C.shape[0]
    if c == 0:
        return 0, np.zeros(0, dtype=int)
    _, R, order = qr(np.asarray(C, float).T, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    if diag.size == 0 or max(diag[0], scale) == 0.0:
        return 0, order
    return int(np.sum(diag > tol * max(diag[0], scale))), order


def velocity_partition(C_bar, tol: float = RANK_RTOL):
    """(rank, solved, kept): coordinate partitioning of the velocities w by the rows C_bar (l, k) at
    one point. QR with column pivoting of C_bar (independent_rows of C_bar^T, the one pivoting rule)
    takes the l columns to solve for first (``solved``, sorted); the other k - l are kept as the
    independent velocities u (``kept``, sorted). rank: the numerical rank of C_bar, below l where
    no partition is regular there. The minimal formulation and optimal control choose u by it."""
    l, k = C_bar.shape
    rank, order = independent_rows(np.asarray(C_bar, float).T, tol)
    solved = sorted(int(i) for i in order[:l])
    return rank, solved, [j for j in range(k) if j not in solved]


def redundancy(system, p=None, tol: float = RANK_RTOL) -> Redundancy:
    """The rank of C(p), its dependent rows (named) and the mobility, at p (default: the default
    configuration). system: a System; p: coordinates (n_p,)."""
    if p is None:
        p = system.default_state()[0]
    p = np.asarray(p, float)
    C = system.numeric.C(p, system.params)
    rank, order = independent_rows(C, tol)
    hol_rank = independent_rows(C[:system.m], tol)[0] if system.m else 0
    names = system.constraint_names
    kept = tuple(sorted(int(i) for i in order[:rank]))
    return Redundancy(system.name, system.n, C.shape[0], rank, hol_rank,
                      tuple(names[i] for i in kept),
                      tuple(names[int(i)] for i in sorted(order[rank:])), kept, tol)


def redundancy_notes(system, p0) -> list:
    """The analysis report's redundancy lines: rank of C at p0, its dependent rows by name, and the
    mobility (the Gruebler-Kutzbach count n - m - l against n - rank C)."""
    if not system.m + system.l:
        return []
    red = redundancy(system, p0)
    return [f"redundancy: rank C = {red.rank} of m + l = {red.rows} rows at the analysed point"
            + (f"; dependent rows: {', '.join(red.dependent)} (minimum-norm multipliers, reactions not unique)"
               if red.dependent else "; no dependent rows"),
            f"mobility: Gruebler count n - m - l = {red.gruebler}, actual n - rank C = {red.mobility} "
            f"velocity degrees of freedom"]


class DependentRows:
    """The System's named dependent rows (a mixin of systems.description.System)."""

    @cached_property
    def redundant_constraints(self) -> tuple:
        """Names of the rows of C dependent on the others at the default state (empty where C has full
        row rank); systems.redundancy(system, p): rank, dependent rows and mobility at any p."""
        return redundancy(self).dependent

    def redundancy_note(self) -> str:
        """The end of the System's summary line: the dependent rows where there are any."""
        rows = self.redundant_constraints
        return f" by count; dependent rows: {', '.join(rows)}." if rows else "."
