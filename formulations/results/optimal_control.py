"""The result of an optimal control problem (formulations.optimal_control): immutable, named fields."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .status import Status


@dataclass(frozen=True)
class ControlStats:
    """Size and cost of one NLP solve.

    variables, constraints: the NLP's sizes; jacobian_nonzeros: structural non-zeros of the
    constraint Jacobian; iterations: IPOPT's; seconds: wall time of the solve, build_seconds of the
    transcription and its derivatives; largest_defect: the largest collocation defect at the
    solution; largest_constraint_residual: max abs(Phi(p)) and abs(C v + c) over the nodes (evaluated by
    the system's own functions, not by the NLP).
    """

    variables: int
    constraints: int
    jacobian_nonzeros: int
    iterations: int
    seconds: float
    build_seconds: float
    largest_defect: float
    largest_constraint_residual: float


@dataclass(frozen=True)
class Resimulation:
    """The optimal inputs re-applied by ``simulate`` (interpolated as the scheme interpolates them):
    the final state reached, the miss of each final condition and the tolerance of the run."""

    formulation: str
    rtol: float
    miss: dict            # {name: reached - target}
    largest_miss: float
    scale: float          # the size of the move the final conditions ask for (for a relative miss)
    failure: str = ""     # the run's message where it failed (largest_miss is then inf)
    trajectory: object = field(default=None, repr=False)  # the re-simulated Trajectory (Trajectory.show draws it)


@dataclass(frozen=True)
class OptimalControlResult:
    """An optimal control solution at the collocation points, as returned by :func:`optimal_control`.

    Immutable, with named fields; ``str(result)`` summarizes the solve, :meth:`plot` draws it.

    Attributes
    ----------
    t : ndarray, shape (K,)
        The collocation points, in s.
    p, v : ndarray
        The dependent state: coordinates (K, n_p) and velocities (K, n_v), in their units (``units``).
    inputs : ndarray, shape (K, n_u)
        The inputs, in the units of the input parameters (N, N m, ...), named by ``input_names``.
    multipliers : ndarray or None
        (K, len(multiplier_names)) where the formulation carries them (in N, N m, ...), else None; the reactions
        follow from ``formulations.reactions`` at any point.
    cost : float
        The optimal objective (for "effort", the integral of the sum of the inputs' squares, e.g. N² s).
    status : Status
        Status.SUCCESS when IPOPT converged, Status.FAILED when it did not (the last iterate is kept),
        Status.WARNED when it converged but a check failed (``message`` says which).
    success, converged : bool
        The status is SUCCESS; IPOPT converged and the boundary conditions hold (a later check may still have
        failed: WARNED).
    message : str
        IPOPT's outcome and what a failed check found.
    stats : ControlStats
        Sizes of the NLP, iterations, seconds, the largest collocation defect and constraint residual.
    input_names, multiplier_names, coordinate_names, velocity_names : tuple of str
        The names of the columns of ``inputs``, ``multipliers``, ``p`` and ``v``.
    units : dict
        {name of p, v or an input: unit}.
    system, formulation, scheme : str
        The system's name, the formulation the problem was solved in and the collocation scheme.
    note : str
        How the solve went besides (e.g. solved in the dependent formulation instead, the choice of u).
    resimulation : Resimulation or None
        The optimal inputs re-applied by ``simulate`` (with ``check=True``): its ``miss`` {name: reached - target}
        of each final condition, ``largest_miss``, ``scale`` (the size of the move), ``trajectory``.
    interval_errors : ndarray or None
        (N,) the collocation error per mesh interval, where estimated (``mesh_tol``).
    optima : tuple
        With several starts: (cost, starts that reached it, description) per local optimum, best first;
        optima of equal cost on different paths (images of one another under a symmetry of the problem)
        are listed apart, the later ones saying so.

    Examples
    --------
    >>> import formulations  # a knife edge pushed 1 m along its blade in 2 s, from rest to rest
    >>> rest = {"x": 0.0, "y": 0.0, "phi": 0.0, "x_dot": 0.0, "phi_dot": 0.0}
    >>> res = formulations.optimal_control("knife_edge", "dependent", (0.0, 2.0), rest, {"x": 1.0, "x_dot": 0.0},
    ...                                    inputs=["F"], nodes=8, scheme="hermite-simpson")
    >>> res.success, res.input_names, res.unit_of("F"), round(float(res.input("F")[0]), 4)
    (True, ('F',), 'N', -1.3991)
    >>> res.multiplier_names, res.multipliers.shape, res.p.shape
    (('lateral blade force',), (17, 1), (17, 3))
    >>> res.resimulation.largest_miss < 1e-8  # the final conditions met by simulate, in m and m/s
    True
    """

    system: str
    formulation: str
    scheme: str
    t: np.ndarray
    p: np.ndarray
    v: np.ndarray
    input_names: tuple
    inputs: np.ndarray
    multiplier_names: tuple
    multipliers: np.ndarray | None
    cost: float
    status: Status
    message: str
    stats: ControlStats
    coordinate_names: tuple = ()
    velocity_names: tuple = ()
    note: str = ""
    resimulation: Resimulation | None = field(default=None)
    interval_errors: np.ndarray | None = None  # (N,) collocation error per mesh interval, where estimated
    units: dict = field(default_factory=dict)  # {name of p, v or an input: unit}
    optima: tuple = ()  # with several starts: (cost, starts that reached it, description) per local optimum

    @property
    def success(self) -> bool:
        return self.status.success

    @property
    def converged(self) -> bool:
        """IPOPT converged and the boundary conditions hold (a later check may still have failed: WARNED)."""
        return self.status in (Status.SUCCESS, Status.WARNED)

    def input(self, name: str) -> np.ndarray:
        """The input ``name`` at the points t."""
        return self.inputs[:, self.input_names.index(name)]

    def state(self, name: str) -> np.ndarray:
        """The coordinate or velocity ``name`` at the points t."""
        if name in self.coordinate_names:
            return self.p[:, self.coordinate_names.index(name)]
        return self.v[:, self.velocity_names.index(name)]

    def __str__(self):
        s = self.stats
        lines = [f"optimal control of {self.system} ({self.formulation}, {self.scheme}, {len(self.t)} points): "
                 f"{self.status.name.lower()}: {self.message}",
                 f"  cost {self.cost:.10g} over t in [{self.t[0]:g}, {self.t[-1]:.6g}] s",
                 f"  NLP: {s.variables} variables, {s.constraints} constraints, {s.jacobian_nonzeros} Jacobian "
                 f"non-zeros; {s.iterations} iterations in {s.seconds:.3g} s (+{s.build_seconds:.3g} s to build)",
                 f"  largest defect {s.largest_defect:.2e}, largest constraint residual "
                 f"{s.largest_constraint_residual:.2e}"]
        if self.note:
            lines.append(f"  {self.note}")
        for cost, count, description in self.optima:
            lines.append(f"  local optimum {cost:.10g}: reached from {count} start{'s' if count > 1 else ''}; "
                         f"{description}")
        if self.interval_errors is not None:
            lines.append(f"  collocation error per interval: largest {np.max(self.interval_errors):.2e}")
        if self.resimulation is not None:
            r = self.resimulation
            lines.append(f"  re-simulated ({r.formulation}, rtol {r.rtol:g}): largest miss of the final conditions "
                         f"{r.largest_miss:.2e} (move {r.scale:.3g})")
        return "\n".join(lines)

    def unit_of(self, name: str) -> str:
        return self.units.get(name, "?")

    def plot(self, coordinates=None, path=None):
        """Coordinates, velocities and inputs against time, one panel each (matplotlib Figure; saved to
        ``path`` if given). coordinates: the names to draw (default all, up to eight); the velocities
        drawn are those of the same names' rates where the system has them, else all."""
        import matplotlib.pyplot as plt

        names = list(coordinates or self.coordinate_names[:8])
        fig, axes = plt.subplots(3, 1, figsize=(7.0, 7.0), sharex=True, layout="constrained")
        for name in names:
            axes[0].plot(self.t, self.state(name), label=f"{name} [{self.unit_of(name)}]")
        rates = [n for n in self.velocity_names if n.removesuffix("_dot") in names] or list(self.velocity_names[:8])
        for name in rates:
            axes[1].plot(self.t, self.state(name), label=f"{name} [{self.unit_of(name)}]")
        for name in self.input_names:
            axes[2].plot(self.t, self.input(name), marker=".", ms=3, label=f"{name} [{self.unit_of(name)}]")
        for ax, title in zip(axes, ("coordinates", "velocities", "inputs")):
            ax.set_title(title, fontsize="medium", loc="left")
            ax.legend(fontsize="small", loc="best")
            ax.grid(alpha=0.3)
        axes[2].set_xlabel("t [s]")
        fig.suptitle(f"{self.system}: {self.formulation}, {self.scheme}, cost {self.cost:.6g} "
                     f"({self.status.name.lower()})", fontsize="medium")
        if path is not None:
            fig.savefig(path, dpi=120)
        return fig
