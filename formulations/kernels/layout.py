"""The layout of a system's kernels' flat outputs (systems.numeric.model._build), which the
compiled formulation modules read (formulations.kernels.compiled), and the kernels every model holds."""
from __future__ import annotations

import numpy as np


class Layout:
    """Sizes and offsets of the flat outputs of a system's kernels (systems.numeric.model._build).

    dynamics: M (n, n), d (n,), f0 (n,), F_lambda (n, c), C (c, n), xi (c,), A (n_p, n), pdd2 (n_p,);
    constraints: Phi (m,), Phi_p (m, n_p), C (c, n), c (c,) (arguments p, params, t).
    """

    def __init__(self, system):
        self.n_p, self.n, self.m, self.l = len(system.coordinates), system.n, system.m, system.l
        self.blocks = tuple(system.unit_norm_blocks)
        self.c = self.m + self.l
        n_p, n, c = self.n_p, self.n, self.c
        sizes = [n * n, n, n, n * c, c * n, c, n_p * n, n_p]
        self.dyn = np.cumsum([0] + sizes).tolist()
        self.con = np.cumsum([0, self.m, self.m * n_p, c * n, c]).tolist()


def primitive_kernels(num) -> dict:
    """The kernels every model holds: dynamics, constraints, energy."""
    return {"DYNAMICS": num.kernel("dynamics"), "CONSTRAINTS": num.kernel("constraints"),
            "ENERGY": num.kernel("energy")}
