"""Formulations side by side over an ensemble: the distribution, over the members, of each
configuration's constraint drift, energy drift and cost.

    cmp = formulations.compare_ensemble(disc, ["dependent", "minimal"], formulations.grid(...), (0.0, 5.0))
    print(cmp.to_markdown())
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from systems.catalogue import as_system

from ..comparison.compare import Configuration, default_configurations
from .ensemble import ensemble

FLOOR = 1e-17  # exact zeros (a formulation that keeps a constraint by construction) on the log scale
QUANTITIES = (("error_position", "position error"), ("error_velocity", "velocity error"),
              ("energy_drift", "energy drift"), ("wall_time", "wall time per member, s"))


@dataclass(frozen=True)
class EnsembleComparison:
    """One EnsembleResult per configuration (``labels``), over the same members."""

    system_name: str
    labels: tuple
    results: tuple

    def statistics(self, label) -> dict:
        """{quantity: (median, 90th percentile, max)} over the members that finished (status 0 or 1),
        plus counts: members, finished, warned (status 2), failed."""
        result = self.results[self.labels.index(label)]
        ok = result.success
        out = {"members": len(result), "finished": int(ok.sum()), "warned": int(np.sum(result.status == 2)),
               "failed": len(result.failed)}
        for name, _ in QUANTITIES + (("rhs_evaluations", ""),):
            values = result.columns[name][ok]
            out[name] = tuple(float(np.percentile(values, q)) for q in (50, 90, 100)) if values.size else None
        return out

    def to_markdown(self) -> str:
        head = ("| configuration | finished / members | position error median (90 %, max) | velocity error median "
                "(90 %, max) | energy drift median (90 %, max) | time per member ms median (max) |")
        lines = [head, "|---|---|---|---|---|---|"]
        for label in self.labels:
            s = self.statistics(label)

            def spread(name):
                v = s[name]
                return "—" if v is None else f"{v[0]:.1e} ({v[1]:.1e}, {v[2]:.1e})"

            wall = s["wall_time"]
            cost = "—" if wall is None else f"{1e3 * wall[0]:.1f} ({1e3 * wall[2]:.1f})"
            warned = f" ({s['warned']} warned)" if s["warned"] else ""
            lines.append(f"| {label} | {s['finished']} / {s['members']}{warned} | {spread('error_position')} | "
                         f"{spread('error_velocity')} | {spread('energy_drift')} | {cost} |")
        return "\n".join(lines)

    def summary(self) -> dict:
        return {"system": self.system_name, "configurations": {label: self.statistics(label) for label in self.labels}}

    def figure(self, path=None):
        """Box plots per configuration (log scale) of each quantity in QUANTITIES."""
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(QUANTITIES), figsize=(3.2 * len(QUANTITIES), 3.8), constrained_layout=True)
        fig.suptitle(f"{self.system_name}: {len(self.results[0])} members per configuration")
        for ax, (name, title) in zip(axes, QUANTITIES):
            data = [result.columns[name][result.success] for result in self.results]
            zeros = any(np.any(values <= 0) for values in data)
            data = [np.maximum(values, FLOOR) if values.size else np.array([FLOOR]) for values in data]
            ax.boxplot(data, showfliers=True)
            ax.set_xticks(range(1, len(self.labels) + 1), self.labels, rotation=35, ha="right", fontsize=8)
            ax.set_yscale("log")
            ax.set_title(title + (f"\n(0 shown at {FLOOR:g})" if zeros else ""), fontsize=10)
        if path is not None:
            fig.savefig(path, dpi=110)
            plt.close(fig)
        return fig


def compare_ensemble(system, configurations=None, inputs=None, t_span=(0.0, 10.0), **options) -> EnsembleComparison:
    """Run ``ensemble`` once per configuration (names as in compare; default: every formulation
    that applies) with the same inputs and options; an EnsembleComparison of the results. Ctrl-C
    raises formulations.EnsembleInterrupted for the configuration under way."""
    system = as_system(system)
    configs = [Configuration.parse(c) for c in (configurations or default_configurations(system))]
    results = tuple(ensemble(system, config, inputs, t_span, **options) for config in configs)
    return EnsembleComparison(system.name, tuple(c.label for c in configs), results)
