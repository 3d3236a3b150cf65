"""Ensembles of the rolling disc: members per second in one process, on the local pool and on Dask.

    pip install ".[dask]" && python benchmarks/ensembles.py        # about 10 minutes
    python benchmarks/ensembles.py --members 2000 --repeats 3             # a quick look

The case: the disc's `rolling` family on a square grid of spin 0..6 rad/s x lean 0..0.5 rad,
5 s per member, dependent formulation, DOP853 at rtol = atol = 1e-8, compiled backend (its
compile paid before the timing). Three executors run in turn, A B C A B C ... (``--repeats``
times): this process (workers=1), the local process pool (2 workers), a Dask LocalCluster
(2 worker processes, started once before the timing; its start-up is reported apart). Medians
with min-max; the tables of the executors must agree member by member. ``--memory`` also runs
10^5 members once on the pool and reports the parent's peak resident memory.
Writes benchmarks/output/ensembles.md and .json, and docs/figures/ensembles/disc_map.png (the
1200-member map of docs/ensembles.md).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import formulations  # noqa: E402
import systems  # noqa: E402
from formulations.workbench.ensembles.maps import stability_map  # noqa: E402

OPTIONS = dict(rtol=1e-8, atol=1e-8, backend="compiled")


def grid(members):
    side = int(round(members ** 0.5))
    return formulations.grid(spin=np.linspace(0.0, 6.0, side), lean=np.linspace(0.0, 0.5, side))


def timed(disc, inputs, **where):
    start = time.perf_counter()
    result = formulations.ensemble(disc, "dependent", inputs, (0.0, 5.0), **OPTIONS, **where)
    return time.perf_counter() - start, result


def same(a, b):
    return all(np.array_equal(a.columns[k], b.columns[k], equal_nan=True)
               for k in ("status", "p_final", "v_final", "steps", "outcome_t"))


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory_only():
    """10^5 members on the pool; prints one JSON line: members, seconds, peak and columns in MiB."""
    disc = systems.load("rolling_disc")
    timed(disc, grid(16), workers=1)
    before = peak_mib()
    seconds, big = timed(disc, grid(100_000), workers=2)
    columns = sum(v.nbytes for v in big.columns.values()) / 2**20
    print(json.dumps({"members": len(big), "seconds": seconds, "peak_mib": peak_mib(), "before_mib": before,
                      "columns_mib": columns}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--memory", action="store_true", help="also 10^5 members once (about 3 minutes)")
    parser.add_argument("--memory-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_only:
        return memory_only()
    from dask.distributed import Client, LocalCluster

    disc = systems.load("rolling_disc")
    inputs = grid(args.members)
    timed(disc, grid(16), workers=1)  # compile (or load) the machine code once
    start = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    cluster_start = time.perf_counter() - start
    times = {"this process": [], "local pool, 2 workers": [], "Dask LocalCluster, 2 workers": []}
    results = {}
    for repeat in range(args.repeats):
        for name, where in (("this process", dict(workers=1)), ("local pool, 2 workers", dict(workers=2)),
                            ("Dask LocalCluster, 2 workers", dict(client=client))):
            seconds, result = timed(disc, inputs, **where)
            times[name].append(seconds)
            results[name] = result
            print(f"{repeat + 1}/{args.repeats} {name}: {seconds:.1f} s", flush=True)
    client.close()
    cluster.close()
    agree = same(results["this process"], results["local pool, 2 workers"]) and \
        same(results["this process"], results["Dask LocalCluster, 2 workers"])
    med = {k: statistics.median(v) for k, v in times.items()}
    serial, pool, dask = med["this process"], med["local pool, 2 workers"], med["Dask LocalCluster, 2 workers"]
    n = len(inputs)
    lines = [f"# Ensembles: {n} rolling-disc members of 5 s (dependent, DOP853, rtol 1e-8, compiled)", "",
             f"Medians of {args.repeats} interleaved runs (min - max); the three tables agree member by member: "
             f"{agree}. Dask LocalCluster start-up (not in the times): {cluster_start:.1f} s.", "",
             "| executor | wall time s | members/s | vs this process |", "|---|---|---|---|"]
    for name, values in times.items():
        lines.append(f"| {name} | {med[name]:.1f} ({min(values):.1f} - {max(values):.1f}) | {n / med[name]:.0f} | "
                     f"{serial / med[name]:.2f}x |")
    lines += ["", f"- 2 workers over 1: {serial / pool:.2f}x (target >= 1.8x)",
              f"- Dask over the local pool on the same 2 cores: {100 * (dask / pool - 1):+.0f} % (target <= +15 %)",
              f"- 10^4 members extrapolated on the pool: {pool * 1e4 / n:.0f} s (target < 60 s)"]
    record = {"members": n, "repeats": args.repeats, "times": times, "medians": med, "agree": agree,
              "cluster_start": cluster_start}
    if args.memory:  # in a process of its own, so that its peak memory is the ensemble's alone
        done = subprocess.run([sys.executable, __file__, "--memory-only"], capture_output=True, text=True, check=True)
        memory = json.loads(done.stdout.strip().splitlines()[-1])
        lines.append(f"- 10^5 members ({memory['members']}): {memory['seconds']:.0f} s on the pool; peak resident "
                     f"memory of that process {memory['peak_mib']:.0f} MiB (after its imports and compile: "
                     f"{memory['before_mib']:.0f} MiB; the summary columns {memory['columns_mib']:.0f} MiB; "
                     f"target < 500 MiB)")
        record["memory"] = memory
    out = ROOT / "benchmarks" / "output"
    out.mkdir(exist_ok=True)
    (out / "ensembles.md").write_text("\n".join(lines) + "\n")
    (out / "ensembles.json").write_text(json.dumps(record, indent=2))
    figures = ROOT / "docs" / "figures" / "ensembles"
    figures.mkdir(parents=True, exist_ok=True)
    _, disc_map = timed(disc, formulations.grid(spin=np.linspace(0, 6, 60), lean=np.linspace(0, 0.5, 20)))
    critical = (9.81 / (3 * 0.5)) ** 0.5
    stability_map(disc_map, figures / "disc_map.png",
                  title="rolling disc: 1200 members of 5 s, dependent (white: abs(theta) reaches 1 rad)",
                  lines=[("spin", critical, f"sqrt(g / (3 r)) = {critical:.2f} rad/s")])
    print("\n".join(lines))


if __name__ == "__main__":
    main()
