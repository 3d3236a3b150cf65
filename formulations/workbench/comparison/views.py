"""Views of particular systems, where a picture says more than a table.

Registered by system name in VIEWS: each entry is a list of (file stem, function(traj, system, ax)).
"""
from __future__ import annotations

import numpy as np

from ..plots import _axes


def disc_contact_point(traj, system):
    """Contact point (x, y) on the plane from the disc's state, (N, 2)."""
    par = system.parameter_dict
    r, h = par["r"], par.get("thickness", 0.0)
    x, y, psi, th = traj.p[:, 0], traj.p[:, 1], traj.p[:, 3], traj.p[:, 4]
    # P = G - r e3 - h/2 e2 with e2 = Rz(psi) (0, cos th, sin th), e3 = Rz(psi) (0, -sin th, cos th)
    e2 = np.stack([-np.sin(psi) * np.cos(th), np.cos(psi) * np.cos(th)], axis=1)
    e3 = np.stack([np.sin(psi) * np.sin(th), -np.cos(psi) * np.sin(th)], axis=1)
    return np.stack([x, y], axis=1) - r * e3 - h / 2 * e2


def disc_path(traj, system, ax=None):
    """The contact path and the centre's track seen from above."""
    ax = _axes(ax)
    P = disc_contact_point(traj, system)
    ax.plot(P[:, 0], P[:, 1], label="contact point")
    ax.plot(traj.p[:, 0], traj.p[:, 1], "--", lw=0.8, label="centre")
    ax.plot(P[0, 0], P[0, 1], "ko", ms=4)
    ax.set(xlabel="x [m]", ylabel="y [m]", title=f"rolling disc from above ({traj.formulation})", aspect="equal")
    ax.legend(fontsize="small")
    return ax


def disc_lean(traj, system, ax=None):
    """Lean angle theta against time (0: upright)."""
    ax = _axes(ax)
    ax.plot(traj.t, np.degrees(traj.p[:, 4]))
    ax.set(xlabel="t [s]", ylabel="lean [deg]", title="lean angle")
    ax.grid(True, alpha=0.3)
    return ax


def sphere_top(traj, system, ax=None):
    """The centre seen from above: a circle of radius R - a, run at a constant rate."""
    ax = _axes(ax)
    par = system.parameter_dict
    phi = np.linspace(0, 2 * np.pi, 200)
    ax.plot(par["R"] * np.cos(phi), par["R"] * np.sin(phi), "k-", lw=1, label="cylinder wall")
    ax.plot(traj.p[:, 0], traj.p[:, 1], label="centre")
    ax.set(xlabel="x [m]", ylabel="y [m]", title="sphere in the cylinder, from above", aspect="equal")
    ax.legend(fontsize="small", loc="upper right")
    return ax


def sphere_side(traj, system, ax=None):
    """Height of the centre against the unwrapped azimuth: a sinusoid."""
    ax = _axes(ax)
    azimuth = np.unwrap(np.arctan2(traj.p[:, 1], traj.p[:, 0]))
    ax.plot(np.degrees(azimuth), traj.p[:, 2])
    ax.set(xlabel="azimuth [deg]", ylabel="z [m]", title="sphere in the cylinder, from the side")
    ax.grid(True, alpha=0.3)
    return ax


VIEWS = {
    "rolling_disc": [("disc_path", disc_path), ("disc_lean", disc_lean)],
    "sphere_in_cylinder": [("sphere_top", sphere_top), ("sphere_side", sphere_side)],
}
