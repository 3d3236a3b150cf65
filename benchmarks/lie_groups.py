"""Constraint drift and energy drift of Lie-group integration on SE(3) and on SO(3) x R^3.

    python benchmarks/lie_groups.py [--out docs/figures/lie] [--quick]

Reproduces the comparison of A. Mueller, *Is there an optimal choice of configuration space for
Lie group integration schemes applied to constrained MBS?*: the dependent formulation in index-1
form (multipliers, no stabilization) integrated by the Munthe-Kaas RK4 method at equal fixed steps,
with the configurations updated on SE(3) (body-fixed twists) and on SO(3) x R^3 (hybrid
velocities), for the heavy top (without gravity as in the paper, and with gravity), the spherical
double pendulum, the floating pair and the spherical three-bar linkage. For each joint: the largest
position residual |Phi_joint| and velocity residual |C_joint v| over the run; and the largest
energy error |E - E0|. Beside them, at the same step, the classical RK4 on (p, v) with
renormalized Euler parameters, for the heavy top a sympy.physics.mechanics peer (KanesMethod with
Euler parameters, RK4 at the same step, tests/kane_models.py), and the ordinary dependent and
minimal formulations with DOP853 at rtol = atol = 1e-8. Writes one figure per case (joint residuals and energy error against time),
summary.md and results.json to --out.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np
from matplotlib.figure import Figure

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the independent KanesMethod models

import formulations  # noqa: E402
import systems  # noqa: E402
from formulations.workbench.comparison.compare import _finite  # noqa: E402

# (label, system, parameters, t_end s, step s)
CASES = [("heavy top, g = 0 (the paper's case)", "heavy_top", {"g": 0.0}, 5.0, 1e-3),
         ("heavy top, g = 9.81 m/s^2", "heavy_top", {}, 5.0, 1e-3),
         ("spherical double pendulum", "spherical_double_pendulum", {}, 5.0, 5e-3),
         ("floating pair", "floating_pair", {}, 5.0, 5e-3),
         ("spherical three-bar", "spherical_three_bar", {}, 5.0, 5e-3)]
LIE = ("RKMK4-SE3", "RKMK4-SO3xR3")
STYLE = {"RKMK4-SE3": "C0", "RKMK4-SO3xR3": "C3", "rk4": "C2", "DOP853": "C7"}


class PeerRun:
    """p, v, energy and wall time of a peer's run on the grid (what the summary needs)."""

    def __init__(self, system, grid, p, v, wall, steps, status=0):
        self.p, self.v, self.status = np.array(p), np.array(v), status
        self.energy = np.array([system.energy(pk, vk) for pk, vk in zip(self.p, self.v)])
        self.stats = type("Stats", (), {"wall_time": wall, "steps": steps})()
        self.settings = {}


def kane_peer(system, grid, step):
    """sympy.physics.mechanics on the heavy top: KanesMethod with Euler parameters and the pivot's
    velocity constraint (dependent speeds eliminated by KanesMethod), lambdified, classical RK4 at
    ``step``; the derivation is not timed, the integration is."""
    from kane_models import heavy_top

    model = heavy_top()
    params = [system.parameter_dict["g"]]
    model.compile()
    p0, v0 = system.default_state()
    x = np.concatenate([p0, v0])  # the model's order: q (e, r), u_ind (omega), u_dep (u)
    fun = lambda y: model.rhs(y, params)  # noqa: E731
    n_p = len(p0)
    ps, vs = [x[:n_p].copy()], [x[n_p:].copy()]
    started = time.perf_counter()
    per = int(round((grid[1] - grid[0]) / step))
    for _ in range(len(grid) - 1):
        for _ in range(per):
            k1 = fun(x)
            k2 = fun(x + step / 2 * k1)
            k3 = fun(x + step / 2 * k2)
            k4 = fun(x + step * k3)
            x = x + step / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        ps.append(x[:n_p].copy())
        vs.append(x[n_p:].copy())
    return PeerRun(system, grid, ps, vs, time.perf_counter() - started, per * (len(grid) - 1))


def joint_residuals(system, traj):
    """{joint: (|Phi_joint|(t), |C_joint v|(t))}, joints named by their rows ("<joint> force x|y|z")."""
    num, par = system.numeric, system.params
    joints = {}
    for i, name in enumerate(system.holonomic_names):
        joints.setdefault(name.rsplit(" force", 1)[0], []).append(i)
    out = {}
    for joint, rows in joints.items():
        Phi = np.array([np.linalg.norm(num.Phi(p, par)[rows]) for p in traj.p])
        Cv = np.array([np.linalg.norm(num.C(p, par)[rows] @ v) for p, v in zip(traj.p, traj.v)])
        out[joint] = (Phi, Cv)
    return out


def run_case(label, name, parameters, t_end, step):
    system = systems.load(name, **parameters)
    grid = np.linspace(0.0, t_end, int(round(t_end / step / 10)) + 1)  # every tenth step
    runs = {}
    for method in LIE:
        runs[method] = formulations.create("dependent", system).simulate((0, t_end), method=method, step=step,
                                                                         t_eval=grid)
    runs["rk4"] = formulations.create("dependent", system).simulate((0, t_end), method="rk4", step=step, t_eval=grid)
    runs["DOP853"] = formulations.create("dependent", system).simulate((0, t_end), rtol=1e-8, atol=1e-8, t_eval=grid)
    if name == "heavy_top":
        runs["KanesMethod, RK4"] = kane_peer(system, grid, step)
    minimal = formulations.create("minimal", system).simulate((0, t_end), rtol=1e-8, atol=1e-8, t_eval=grid)
    reference = formulations.create("dependent", system, stabilization="projection").simulate(
        (0, t_end), rtol=1e-12, atol=1e-12, t_eval=grid)
    rows = []
    residuals = {}
    for key, traj in list(runs.items()) + [("minimal, DOP853", minimal)]:
        res = joint_residuals(system, traj)
        residuals[key] = res
        E = traj.energy
        rows.append({"case": label, "run": key if key != "rk4" else "RK4 on (p, v)",
                     "step": step if key in LIE or key in ("rk4", "KanesMethod, RK4") else None, "status": traj.status,
                     "wall_time": traj.stats.wall_time, "steps": traj.stats.steps,
                     "joints": {j: [float(np.max(P)), float(np.max(C))] for j, (P, C) in res.items()},
                     "energy_drift": float(np.max(np.abs(E - E[0]))), "initial_energy": float(E[0]),
                     "deviation": float(np.max(np.abs(traj.p - reference.p)))})
    return system, grid, runs, residuals, rows


def figure(label, grid, runs, residuals, out, stem):
    joints = list(next(iter(residuals.values())))
    fig = Figure(figsize=(5.2 * (len(joints) + 1), 4.2))
    axes = fig.subplots(1, len(joints) + 1)
    floor = 1e-17
    for ax, joint in zip(axes, joints):
        for key in (*LIE, "rk4"):
            Phi = residuals[key][joint][0]
            ax.semilogy(grid, np.maximum(Phi, floor), color=STYLE[key], label=key if key != "rk4" else "RK4 on (p, v)")
        ax.set_title(f"{joint}: |Phi|")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("position residual [m]")
    ax = axes[-1]
    for key in (*LIE, "rk4"):
        E = runs[key].energy
        ax.semilogy(grid, np.maximum(np.abs(E - E[0]), floor), color=STYLE[key])
    ax.set_title("energy error |E - E0|")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("J")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{label}: Munthe-Kaas RK4, h = {runs['RKMK4-SE3'].settings['step']:g} s")
    fig.tight_layout()
    fig.savefig(out / f"{stem}.png", dpi=90)


def summary(rows) -> str:
    lines = ["| case | run | step s | joint: max abs(Phi) m / max abs(C v) m/s | max abs(E - E0) J | deviation | wall s |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        joints = "; ".join(f"{j}: {P:.1e} / {C:.1e}" for j, (P, C) in r["joints"].items())
        step = f"{r['step']:g}" if r["step"] else "adaptive 1e-8"
        failed = " (failed)" if r["status"] < 0 else ""
        lines.append(f"| {r['case']} | {r['run']}{failed} | {step} | {joints} | {r['energy_drift']:.1e} | "
                     f"{r['deviation']:.1e} | {r['wall_time']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures/lie")
    parser.add_argument("--quick", action="store_true", help="1 s per case")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, (label, name, parameters, t_end, step) in enumerate(CASES):
        started = time.perf_counter()
        t_end = 1.0 if args.quick else t_end
        _, grid, runs, residuals, case_rows = run_case(label, name, parameters, t_end, step)
        stem = name + ("_no_gravity" if parameters.get("g") == 0.0 else "")
        figure(label, grid, runs, residuals, out, stem)
        rows += case_rows
        print(f"{label}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    text = summary(rows)
    (out / "summary.md").write_text("# Lie-group integrators, measured\n\n" + text)
    (out / "results.json").write_text(json.dumps(_finite(rows), indent=1))
    print(text)


if __name__ == "__main__":
    main()
