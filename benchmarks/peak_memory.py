"""Peak memory of the README's main command, `pfaff compare rolling_disc --out DIR`, in fresh processes.

The peak is the maximum resident set size of the whole process (what `/usr/bin/time -v` reports as
"Maximum resident set size"): the parent reads it from the rusage of the finished child (os.wait4),
which covers the child and any processes it waited for. Each case runs as its own `pfaff` process
with its own output folder; repetitions are interleaved (A B C ... A B C ...).

Cases (the backend through $PFAFF_BACKEND; `pfaff compare` takes the default of the formulations):
  numpy           PFAFF_BACKEND=numpy: lambdified primitives, scipy's loops; no numba imported
  auto cold       the default backend ("auto": compiled where numba can be imported) with a fresh,
                  empty PFAFF_CACHE_DIR and NUMBA_CACHE_DIR in every repetition: a first run on a new
                  machine, where numba compiles the loops, the linear algebra, every formulation
                  module and kernel of the comparison (1.5-2 minutes on a 2-core machine)
  auto warm       the default backend on cache folders that a compiled run of the same command filled
                  (one untimed `PFAFF_BACKEND=compiled` process before the repetitions): the machine
                  code is loaded
  compiled cold   PFAFF_BACKEND=compiled with fresh, empty cache folders: as auto cold wherever numba
                  is installed

Expected runtime: about 15 minutes with the defaults (3 repetitions of every case; the cold cases
take most of it); with numpy and auto warm only, about 1.5 minutes.

Run: python benchmarks/peak_memory.py [--repeat 3] [--cases numpy,auto-cold,auto-warm,compiled-cold]
     [--out benchmarks/output]
Writes OUT/peak_memory.md and OUT/peak_memory.json: per case the median peak in MiB with min-max,
the median wall time of the process and the backend each configuration used (from results.json).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
COMMAND = ["compare", "rolling_disc", "--quiet"]
CASES = {"numpy": "numpy backend", "auto-cold": "auto, cold cache", "auto-warm": "auto, warm cache",
         "compiled-cold": "compiled, cold cache (compiling)"}
TARGET_MIB = 250


def _pfaff():
    """The command line of `pfaff` in this interpreter (the installed entry point's module)."""
    return [sys.executable, "-c", "import sys, pfaff_cli; sys.exit(pfaff_cli.main())"]


def run_once(out_dir, env) -> dict:
    """One fresh `pfaff compare` process: its peak resident set size (MiB), wall time (s), exit
    status and the backends its runs used."""
    started = time.perf_counter()
    proc = subprocess.Popen(_pfaff() + COMMAND + ["--out", str(out_dir)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"pfaff {' '.join(COMMAND)} exited with {proc.returncode}: {stderr.decode()[-2000:]}")
    results = json.loads((pathlib.Path(out_dir) / "results.json").read_text())
    backends = sorted({row.get("backend") or "?" for row in results.get("rows", [])})
    return {"peak_mib": usage.ru_maxrss / 1024, "wall_s": wall, "backends": backends}  # ru_maxrss in KiB (Linux)


def _environment(cache, backend=None) -> dict:
    env = dict(os.environ, PFAFF_CACHE_DIR=str(cache), NUMBA_CACHE_DIR=str(cache / "numba"))
    env.pop("PFAFF_BACKEND", None)
    if backend:
        env["PFAFF_BACKEND"] = backend
    return env


def measure(cases, repeat, work) -> dict:
    warm = work / "warm-cache"
    if "auto-warm" in cases:  # fill the cache once, untimed: every configuration runs compiled
        run_once(work / "fill", _environment(warm, "compiled"))
    samples = {case: [] for case in cases}
    for i in range(repeat):
        for case in cases:
            out = work / f"{case}-{i}"
            if case == "auto-warm":
                env = _environment(warm)
            else:
                cache = work / f"cache-{case}-{i}"
                env = _environment(cache, {"numpy": "numpy", "compiled-cold": "compiled"}.get(case))
            sample = run_once(out, env)
            samples[case].append(sample)
            print(f"{CASES[case]:34s} repetition {i + 1}: {sample['peak_mib']:6.1f} MiB, {sample['wall_s']:6.1f} s, "
                  f"backend {', '.join(sample['backends'])}", flush=True)
            if case != "auto-warm":
                shutil.rmtree(work / f"cache-{case}-{i}", ignore_errors=True)
            shutil.rmtree(out, ignore_errors=True)
    return samples


def _spread(values, fmt):
    return f"{format(statistics.median(values), fmt)} ({format(min(values), fmt)}-{format(max(values), fmt)})"


def write(samples, repeat, out):
    out.mkdir(parents=True, exist_ok=True)
    lines = ["# Peak memory of `pfaff compare rolling_disc --out DIR`", "",
             f"Maximum resident set size of the whole process (os.wait4 rusage, as `/usr/bin/time -v`), "
             f"fresh processes, {repeat} repetitions interleaved; medians with min-max. Target: "
             f"at most {TARGET_MIB} MiB. Written by benchmarks/peak_memory.py.", "",
             "| case | peak MiB | wall s | backend used | within target |", "|---|---|---|---|---|"]
    for case, runs in samples.items():
        peaks = [r["peak_mib"] for r in runs]
        backends = sorted({b for r in runs for b in r["backends"]})
        lines.append(f"| {CASES[case]} | {_spread(peaks, '.0f')} | {_spread([r['wall_s'] for r in runs], '.1f')} | "
                     f"{', '.join(backends)} | {'yes' if statistics.median(peaks) <= TARGET_MIB else 'no'} |")
    (out / "peak_memory.md").write_text("\n".join(lines) + "\n")
    (out / "peak_memory.json").write_text(json.dumps({"command": ["pfaff"] + COMMAND + ["--out", "DIR"],
                                                      "repeat": repeat, "target_mib": TARGET_MIB,
                                                      "samples": samples}, indent=1) + "\n")
    print("\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES), help=f"a subset of {', '.join(CASES)}")
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "benchmarks" / "output")
    args = parser.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        parser.error(f"--cases got {unknown} but expected some of {', '.join(CASES)}")
    with tempfile.TemporaryDirectory(prefix="pfaff-peak-memory-") as work:
        samples = measure(cases, args.repeat, pathlib.Path(work))
    write(samples, args.repeat, args.out)


if __name__ == "__main__":
    main()
