"""The figure of a stability result: real and imaginary parts of the eigenvalues against the parameter."""
from __future__ import annotations

import numpy as np


def plot_stability(result, ax=None):
    """Real parts (filled) and imaginary parts (open) of the non-trivial eigenvalues of a
    formulations.StabilityResult against its parameter, the critical values as vertical lines.
    Draws on ``ax`` (default: a new figure's axes) and returns it."""
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.figure(figsize=(7, 4.5)).add_subplot()
    x = np.repeat(result.values[:, None], result.eigenvalues.shape[1], axis=1)
    ax.plot(x.ravel(), result.eigenvalues.real.ravel(), ".", color="C0", label="real part")
    ax.plot(x.ravel(), np.abs(result.eigenvalues.imag).ravel(), "o", mfc="none", ms=3, color="C1",
            label="imaginary part (|.|)")
    ax.axhline(0.0, color="0.5", lw=0.8)
    for c in result.critical:
        ax.axvline(c.value, color="C3", lw=0.8, ls="--")
        ax.annotate(f"{c.value:.6g}", (c.value, 1.0), xycoords=("data", "axes fraction"), rotation=90,
                    va="top", ha="right", fontsize=8, color="C3")
    ax.set_xlabel(result.parameter)
    ax.set_ylabel("eigenvalue (1/s)")
    ax.set_title(f"{result.system_name}: {result.family}")
    ax.legend(loc="best", fontsize=8)
    return ax
