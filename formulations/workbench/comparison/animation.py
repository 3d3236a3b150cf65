"""GIF animations of the rolling disc and the sphere in the cylinder (matplotlib's Pillow writer)."""
from __future__ import annotations

import numpy as np

from .views import disc_contact_point


def _frames(traj, fps, duration):
    t = traj.t
    count = int(min(len(t), max(2, fps * duration)))
    return np.linspace(0, len(t) - 1, count).astype(int)


def animate(traj, system, path, fps=20, duration=8.0):
    """Write a GIF of ``traj`` to ``path`` (rolling_disc or sphere_in_cylinder); returns the path."""
    from matplotlib.animation import FuncAnimation, PillowWriter
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, Ellipse

    idx = _frames(traj, fps, duration)
    fig = Figure(figsize=(8, 4), layout="constrained")  # labels kept clear of each other
    if system.name == "rolling_disc":
        ax, ax2 = fig.subplots(1, 2)
        par = system.parameter_dict
        P = disc_contact_point(traj, system)
        ax.plot(P[:, 0], P[:, 1], color="0.8", lw=1)
        pad = 2 * par["r"]
        ax.set(xlim=(P[:, 0].min() - pad, P[:, 0].max() + pad), ylim=(P[:, 1].min() - pad, P[:, 1].max() + pad),
               aspect="equal", title="from above", xlabel="x [m]", ylabel="y [m]")
        disc = Ellipse((0, 0), 2 * par["r"], 0.01, fc="tab:blue", alpha=0.6)
        ax.add_patch(disc)
        trail, = ax.plot([], [], "tab:blue", lw=1)
        ax2.set(xlim=(traj.t[0], traj.t[-1]), ylim=(np.degrees(traj.p[:, 4]).min() - 5, np.degrees(traj.p[:, 4]).max() + 5),
                xlabel="t [s]", ylabel="lean [deg]", title="lean")
        lean, = ax2.plot([], [])

        def draw(k):
            i = idx[k]
            x, y, psi, th = traj.p[i, 0], traj.p[i, 1], traj.p[i, 3], traj.p[i, 4]
            disc.set_center((x, y))
            disc.width, disc.height = 2 * par["r"], max(2 * par["r"] * abs(np.sin(th)), 0.005)
            disc.angle = np.degrees(psi)
            trail.set_data(P[: i + 1, 0], P[: i + 1, 1])
            lean.set_data(traj.t[: i + 1], np.degrees(traj.p[: i + 1, 4]))
            return disc, trail, lean
    elif system.name == "sphere_in_cylinder":
        ax, ax2 = fig.subplots(1, 2)
        par = system.parameter_dict
        ax.add_patch(Circle((0, 0), par["R"], fill=False))
        ax.set(xlim=(-1.1 * par["R"], 1.1 * par["R"]), ylim=(-1.1 * par["R"], 1.1 * par["R"]), aspect="equal",
               title="from above", xlabel="x [m]", ylabel="y [m]")
        ball = Circle((0, 0), par["a"], fc="tab:orange")
        ax.add_patch(ball)
        azimuth = np.unwrap(np.arctan2(traj.p[:, 1], traj.p[:, 0]))
        ax2.plot(np.degrees(azimuth), traj.p[:, 2], color="0.8")
        ax2.set(xlabel="azimuth [deg]", ylabel="z [m]", title="from the side")
        dot, = ax2.plot([], [], "o", color="tab:orange")

        def draw(k):
            i = idx[k]
            ball.set_center((traj.p[i, 0], traj.p[i, 1]))
            dot.set_data([np.degrees(azimuth[i])], [traj.p[i, 2]])
            return ball, dot
    else:
        raise ValueError(f"animate got system {system.name!r} but expected 'rolling_disc' or 'sphere_in_cylinder'")
    FuncAnimation(fig, draw, frames=len(idx), blit=False).save(str(path), writer=PillowWriter(fps=fps))
    return path
