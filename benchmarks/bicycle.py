"""The Whipple bicycle (Meijaard et al. 2007): build, linearize and the 101-speed stability sweep,
pfaff against sympy's KanesMethod + Linearizer on the same bicycle, each run cold in its own process.

pfaff: systems.catalogue.bicycle.build() (the symbolic description and its numeric functions),
formulations.linearize at v = 5 m/s (the first call derives the exact derivatives of the
primitives, once per structure; the second is the per-point cost), and formulations.stability over
v = 0, 0.1, ..., 10 m/s with the weave and capsize speeds located to 1e-10.
sympy: the same bicycle written with ReferenceFrame / Point / RigidBody (rear contact point at rest,
the front contact's three velocity components as constraints, its height as the configuration
constraint), KanesMethod, then KanesMethod.linearize(A_and_B=True) about the upright motion with
the accelerations of the operating point given as zero (sympy issue #14705), and the sweep as 101
eigenvalue problems of the lambdified A(v) (its roll and steer rows and columns) with the critical
speeds by Brent's method on the largest real part.

The runs interleave (pfaff, sympy, pfaff, sympy, ...); pfaff runs ``--repeats`` times, sympy
``--sympy-repeats`` times (each takes minutes); the medians with min-max are written to
benchmarks/output/bicycle.md and .json.

    python benchmarks/bicycle.py                     # 5 pfaff runs, 1 sympy run
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "output"
SPEEDS = [i / 10 for i in range(101)]
WEAVE, CAPSIZE = 4.29238253634111, 6.02426201538837  # Meijaard et al. (2007), Table 2 (a)


class Clock:
    """Wall and CPU seconds of the steps of one run: ``times[step] = (wall, cpu)``."""

    def __init__(self):
        self.times = {}

    def __call__(self, step, fn):
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        self.times[step] = (time.perf_counter() - wall, time.process_time() - cpu)
        return out


def pfaff_run() -> dict:
    import numpy as np
    import formulations
    from systems.catalogue import bicycle

    clock = Clock()
    system = clock("build", bicycle.build)
    at5 = system.with_parameters(v=5.0)
    lin = clock("linearize first", lambda: formulations.linearize(at5, *at5.default_state(), formulation="minimal"))
    clock("linearize", lambda: formulations.linearize(at5, *at5.default_state(), formulation="minimal"))
    result = clock("sweep", lambda: formulations.stability(system, None, "v", SPEEDS))
    return {**clock.times, "critical": list(result.critical_values),
            "eigenvalues at 5 m/s": [[z.real, z.imag] for z in np.sort_complex(lin.nontrivial)]}


def sympy_model():
    """The benchmark bicycle in sympy.physics.mechanics; x forward, y left, z up, as the catalogue."""
    import sympy as sp
    import sympy.physics.mechanics as me

    yaw, roll, pitch, steer = q = me.dynamicsymbols("q1:5")
    u = me.dynamicsymbols("u1:7")  # yaw, roll, pitch, steer rates; rear and front wheel spin
    lam, w, c, r_R, r_F, g = 3.141592653589793 / 10, 1.02, 0.08, 0.3, 0.35, 9.81
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [yaw, N.z])
    R = Y.orientnew("R", "Axis", [roll, Y.x])
    B = R.orientnew("B", "Axis", [pitch, R.y])
    steer_axis = B.orientnew("S", "Axis", [-lam, B.y])
    F = steer_axis.orientnew("F", "Axis", [steer, steer_axis.z])
    fork_axes = F.orientnew("H", "Axis", [lam, F.y])  # the rear frame's axes at zero steer
    Y.set_ang_vel(N, u[0] * N.z)
    R.set_ang_vel(Y, u[1] * Y.x)
    B.set_ang_vel(R, u[2] * R.y)
    F.set_ang_vel(steer_axis, u[3] * steer_axis.z)
    rear_wheel, front_wheel = me.ReferenceFrame("WR"), me.ReferenceFrame("WF")
    rear_wheel.set_ang_vel(N, B.ang_vel_in(N) + u[4] * B.y)
    front_wheel.set_ang_vel(N, F.ang_vel_in(N) + u[5] * F.y)

    contact = me.Point("rear contact")
    contact.set_vel(N, 0)
    rear = contact.locatenew("rear centre", r_R * R.z)
    rear.v2pt_theory(contact, N, rear_wheel)
    body = rear.locatenew("rear body centre", 0.3 * B.x + (0.9 - r_R) * B.z)
    body.v2pt_theory(rear, N, B)
    axis_point = rear.locatenew("steer axis point", (w + c) * B.x - r_R * B.z)
    axis_point.v2pt_theory(rear, N, B)
    fork = axis_point.locatenew("fork centre", (0.9 - w - c) * fork_axes.x + 0.7 * fork_axes.z)
    fork.v2pt_theory(axis_point, N, F)
    front = axis_point.locatenew("front centre", -c * fork_axes.x + r_F * fork_axes.z)
    front.v2pt_theory(axis_point, N, F)
    front_contact = front.locatenew("front contact", r_F * (N.z.dot(F.y) * F.y - N.z).normalize())
    front_contact.v2pt_theory(front, N, front_wheel)

    bodies = [me.RigidBody("rear wheel", rear, rear_wheel, 2.0, (me.inertia(B, 0.0603, 0.12, 0.0603), rear)),
              me.RigidBody("rear body", body, B, 85.0, (me.inertia(B, 9.2, 11.0, 2.8, 0, 0, -2.4), body)),
              me.RigidBody("fork", fork, F, 4.0, (me.inertia(fork_axes, 0.05892, 0.06, 0.00708, 0, 0, 0.00756), fork)),
              me.RigidBody("front wheel", front, front_wheel, 3.0, (me.inertia(F, 0.1405, 0.28, 0.1405), front))]
    loads = [(b.masscenter, -b.mass * g * N.z) for b in bodies]
    kd = [qi.diff() - ui for qi, ui in zip(q, u[:4])]
    velocity = [front_contact.vel(N).dot(Y.x), front_contact.vel(N).dot(Y.y), front_contact.vel(N).dot(Y.z)]
    kane = me.KanesMethod(N, q_ind=[yaw, roll, steer], q_dependent=[pitch],
                          configuration_constraints=[front_contact.pos_from(contact).dot(N.z)],
                          u_ind=[u[1], u[4], u[3]], u_dependent=[u[0], u[2], u[5]], velocity_constraints=velocity,
                          kd_eqs=kd, constraint_solver="CRAMER")
    kane.kanes_equations(bodies, loads)
    return kane, q, u, r_R, r_F


def sympy_run() -> dict:
    import numpy as np
    import sympy as sp
    from scipy.optimize import brentq

    clock = Clock()
    kane, q, u, r_R, r_F = clock("build", sympy_model)
    v = sp.Symbol("v")
    op = {qi: 0 for qi in q} | {u[0]: 0, u[1]: 0, u[2]: 0, u[3]: 0, u[4]: v / r_R, u[5]: v / r_F}
    op |= {ui.diff(): 0 for ui in u}
    A = clock("linearize", lambda: kane.linearize(A_and_B=True, op_point=op, linear_solver="CRAMER")[0])
    A_of_v = sp.lambdify(v, A, modules="numpy")

    def nontrivial(speed):
        """The state is (yaw, roll, steer, roll rate, rear wheel rate, steer rate): the yaw column and the
        rear wheel rate's row of A are zero, so the other four rows and columns hold the non-trivial modes."""
        return np.linalg.eigvals(np.array(A_of_v(speed), float)[np.ix_([1, 2, 3, 5], [1, 2, 3, 5])])

    def largest(speed):
        return max(nontrivial(speed).real)

    def sweep():
        signs = [largest(s) > 0 for s in SPEEDS]
        return [brentq(largest, a, b, xtol=1e-10) for a, b, sa, sb in zip(SPEEDS, SPEEDS[1:], signs, signs[1:])
                if sa != sb]

    critical = clock("sweep", sweep)
    return {**clock.times, "critical": critical,
            "eigenvalues at 5 m/s": [[z.real, z.imag] for z in np.sort_complex(nontrivial(5.0))]}


def measure(which: str) -> dict:
    done = subprocess.run([sys.executable, __file__, "--worker", which], capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise RuntimeError(f"{which} run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(runs, key, which):
    values = [r[key][which] for r in runs if key in r]
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": len(values)}


def report(pfaff, sympy_runs):
    def cell(runs, key):
        if not runs or key not in runs[0]:
            return "—"
        wall, cpu = summary(runs, key, 0), summary(runs, key, 1)
        return (f"{wall['median']:.3g} s ({wall['min']:.3g}–{wall['max']:.3g}); CPU {cpu['median']:.3g} s "
                f"({cpu['min']:.3g}–{cpu['max']:.3g}); {wall['runs']} runs")

    def total(runs, keys):
        if not runs:
            return "—"
        return f"{statistics.median(sum(r[k][1] for k in keys) for r in runs):.3g} s"

    lines = ["# The Whipple bicycle: build, linearize, stability sweep", "",
             "Meijaard et al. (2007) benchmark bicycle. Each run is a fresh process; medians (min–max). "
             "pfaff's linearize: the first call derives the exact derivatives of the primitives (once per "
             "structure), later calls are the per-point cost. The sweep: 101 speeds 0–10 m/s with the weave and "
             "capsize speeds located to 1e-10 (sympy: 101 eigenvalue problems of its lambdified A(v), then Brent's "
             "method). Wall time, and the process's CPU time: the machine (2 cores) is shared, and the wall times "
             "include its load.", "",
             "| step | pfaff | sympy KanesMethod + Linearizer |", "|---|---|---|",
             f"| build (equations of motion) | {cell(pfaff, 'build')} | {cell(sympy_runs, 'build')} |",
             f"| linearize, first point | {cell(pfaff, 'linearize first')} | {cell(sympy_runs, 'linearize')} |",
             f"| linearize, another point | {cell(pfaff, 'linearize')} | (A(v) is symbolic in v) |",
             f"| sweep over 101 speeds | {cell(pfaff, 'sweep')} | {cell(sympy_runs, 'sweep')} |",
             f"| build + first linearization + sweep, CPU | {total(pfaff, ('build', 'linearize first', 'sweep'))} | "
             f"{total(sympy_runs, ('build', 'linearize', 'sweep'))} |", "",
             f"sympy ran {len(sympy_runs)} time(s) against pfaff's {len(pfaff)}: its linearization alone takes minutes. "
             "Its sweep is cheap because its A is symbolic in the speed v; pfaff linearizes every speed anew "
             "(exact derivatives evaluated at the point), so the total is the comparison.", ""]
    for name, runs in (("pfaff", pfaff), ("sympy", sympy_runs)):
        if runs:
            crit = runs[0]["critical"]
            lines.append(f"{name}: critical speeds {', '.join(f'{x:.12g}' for x in crit)} m/s "
                         f"(Meijaard: {WEAVE}, {CAPSIZE}); eigenvalues at 5 m/s: "
                         + ", ".join(f"{re:.10g}{im:+.10g}i" for re, im in runs[0]["eigenvalues at 5 m/s"]))
            lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sympy-repeats", type=int, default=1)
    parser.add_argument("--worker", choices=("pfaff", "sympy"))
    parser.add_argument("--report-only", action="store_true", help="rewrite bicycle.md from bicycle.json")
    args = parser.parse_args()
    if args.report_only:
        runs = json.loads((OUT / "bicycle.json").read_text())
        (OUT / "bicycle.md").write_text(report(runs["pfaff"], runs["sympy"]) + "\n")
        return
    if args.worker:
        print(json.dumps(pfaff_run() if args.worker == "pfaff" else sympy_run()))
        return
    pfaff, sympy_runs = [], []
    for i in range(max(args.repeats, args.sympy_repeats)):
        if i < args.repeats:
            pfaff.append(measure("pfaff"))
            print("pfaff", {k: v for k, v in pfaff[-1].items() if k != "eigenvalues at 5 m/s"}, flush=True)
        if i < args.sympy_repeats:
            sympy_runs.append(measure("sympy"))
            print("sympy", {k: v for k, v in sympy_runs[-1].items() if k != "eigenvalues at 5 m/s"}, flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "bicycle.json").write_text(json.dumps({"pfaff": pfaff, "sympy": sympy_runs}, indent=1))
    (OUT / "bicycle.md").write_text(report(pfaff, sympy_runs) + "\n")
    print(report(pfaff, sympy_runs))


if __name__ == "__main__":
    main()
