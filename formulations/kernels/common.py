"""The parts every generated formulation module shares: imports of the system's kernels, the
layout of their flat outputs, the y'-only wrapper and the compiled passes over recorded points."""
from __future__ import annotations

import hashlib
import pathlib

import numpy as np
import sympy as sp

# every generated module carries the hash of the compiled code it imports (numba links that code into
# the module's machine code, and its cache checks only the module's own file), so a change there makes
# new modules
_IMPORTED = ("linalg.py", "sparse_linalg.py", "borrowed.py", "by_address.py")
LINALG = hashlib.sha256(b"".join((pathlib.Path(__file__).parent / name).read_bytes()
                                 for name in _IMPORTED)).hexdigest()[:12]


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

    def dynamics_views(self, buffer="buf", indent="    "):
        """Lines naming the views M, d, f0, F, Cm, xi, Ad, pdd2 of ``buffer``."""
        views = [("M", 0, "(N, N)"), ("d", 1, None), ("f0", 2, None), ("F", 3, "(N, C)"), ("Cm", 4, "(C, N)"),
                 ("xi", 5, None), ("Ad", 6, "(N_P, N)"), ("pdd2", 7, None)]
        return "\n".join(f"{indent}{name} = {buffer}[DYN_AT[{i}]:DYN_AT[{i + 1}]]"
                         + (f".reshape({shape})" if shape else "") for name, i, shape in views)


def header(system, kernels) -> str:
    """Module preamble: imports, sizes and the unit-norm blocks of p; ``kernels`` maps local names
    (e.g. "_dynamics") to the numba kernels to import."""
    lay = Layout(system)
    blocks = [list(b) for b in system.unit_norm_blocks]
    imports = "\n".join(f"from {k.__module__} import {k.__name__} as {alias}" for alias, k in kernels.items())
    return f"""import math

import numba
import numpy as np

from formulations.kernels.borrowed import borrowed, hold
from formulations.kernels.linalg import (SADDLE_RTOL, all_finite, any_nonzero, det, finite, least_squares,
                                         lu_in_place, lu_solve, max_abs, mm, mm_into, mv, mv_into, pseudo_inverse,
                                         resolved, sigma_ratio, singular_values, solve, solve1, solve1_min_norm,
                                         solve_in_place, solve_min_norm_in_place, tmm, tmm_into, tmv, tmv_into,
                                         unit_blocks)
from formulations.kernels.sparse_linalg import sparse_factor, sparse_mv, sparse_solve, sparse_solve_columns

{imports}

LINALG = "{LINALG}"
N_P, N, C, M_H, L = {lay.n_p}, {lay.n}, {lay.c}, {lay.m}, {lay.l}
BLOCKS = np.array({blocks or [[0, 0, 0, 0]]}, dtype=np.int64)[:{len(blocks)}]
DYN, CON = {lay.dyn[-1]}, {lay.con[-1]}
DYN_AT = np.array({lay.dyn!r}, dtype=np.int64)  # offsets of M, d, f0, F, C, xi, A, pdd2 in the dynamics output

"""


NO_POST_STEP = '''
REJECT_FAILED_STAGES = False


@numba.njit(cache=True)
def post_step(t, y, params, extra, work):
    """0: nothing changes between steps."""
    return 0
'''


def primitive_kernels(num) -> dict:
    """The kernels every module imports (dynamics, constraints, energy), named as ``header`` takes them."""
    return {"_dynamics": num.kernel("dynamics"), "_constraints": num.kernel("constraints"),
            "_energy": num.kernel("energy")}


def passes(system, post_step=None) -> str:
    """rhs, evaluate_all and check_all, written on top of the module's ``evaluate``, and the loop's
    ``post_step(t, y, params, extra, work) -> int`` (0 nothing, 1 stop for a new chart, 2 y changed
    in place, -1 failed; formulations.solvers.machine) with REJECT_FAILED_STAGES: ``post_step``
    its source, default: 0 always."""
    return ((post_step or NO_POST_STEP) + _run_layout(system) + _rhs_source() + _recording_source()
            + _check_source())


def _run_layout(system) -> str:
    """The work-array layout of a run (SCRATCH, WORK) and whether A is constant."""
    constant_A = not (sp.Matrix(system.A).free_symbols & (set(system.coordinates) | {system.time}))
    return f"""
A_CONSTANT = {constant_A}  # A(p) the same everywhere (v = p', say): its sigma ratio once

SCRATCH = C + N_P + 2 * N
WORK = SCRATCH + EVAL_WORK
"""


def _rhs_source() -> str:
    """workspace and rhs: y' alone, through the run's work array."""
    return '''

@numba.njit(cache=True)
def workspace():
    """The work array of rhs (WORK zeros): one per run, reused by every evaluation."""
    return np.zeros(WORK)


@numba.njit(cache=True)
def rhs(t, y, params, extra, out, work):
    """y' only (the rest into the scratch part of work); the arrays seen through borrowed views,
    which the call holds."""
    w = borrowed(work)
    lam = w[:C]
    p = w[C:C + N_P]
    v = w[C + N_P:C + N_P + N]
    vdot = w[C + N_P + N:SCRATCH]
    # bool(): a run-time flag, the type evaluate is compiled for (by_address.SIGNATURES), where a
    # literal False would be refused
    return evaluate(t, borrowed(y), borrowed(params), borrowed(extra), borrowed(out), lam, p, v, vdot, bool(False),
                    w[SCRATCH:])
'''


def _recording_source() -> str:
    """The recording passes project_all and evaluate_all: projection and evaluation at the recorded points."""
    return '''

@numba.njit(cache=True)
def project_all(ts, ys, params, extra):
    """The rows of ys projected in place where post_step projects (points of an output grid,
    interpolated from steps that were not)."""
    work = workspace()
    for i in range(ys.shape[0]):
        row = ys[i].copy()
        if post_step(ts[i], row, params, extra, work) == 2:
            ys[i] = row


@numba.njit(cache=True)
def evaluate_all(ts, ys, params, extra):
    """(y' (K, n_y), lambda (K, c), ok (K,), p (K, n_p), v (K, n), v' (K, n)) at the recorded points."""
    count = ys.shape[0]
    ydot = np.full(ys.shape, np.nan)
    lam = np.full((count, C), np.nan)
    ok = np.zeros(count, dtype=np.bool_)
    ps = np.full((count, N_P), np.nan)
    vs = np.full((count, N), np.nan)
    vdots = np.full((count, N), np.nan)
    out, mult = np.empty(ys.shape[1]), np.empty(C)
    p, v, vdot = np.empty(N_P), np.empty(N), np.empty(N)
    work = np.zeros(EVAL_WORK)
    for i in range(count):  # through work arrays: evaluate is compiled for one signature only
        ok[i] = evaluate(ts[i], ys[i].copy(), params, extra, out, mult, p, v, vdot, bool(True), work)
        ydot[i], lam[i], ps[i], vs[i], vdots[i] = out, mult, p, v, vdot
    return ydot, lam, ok, ps, vs, vdots
'''


def _check_source() -> str:
    """check_all: the constraint errors, energy and rank measures at the recorded points."""
    return """

@numba.njit(cache=True)
def check_all(ts, ps, vs, vdots, ok, params):
    \"\"\"Per recorded point: max |Phi|, max |C v + c|, max |C v' + xi| (NaN where v' is missing), the
    energy, sigma_min / sigma_max of Phi_p, det(Phi_p(p_k) Phi_p(p_k-1)^T) (1 at k = 0) and
    sigma_min / sigma_max of A with the sign of det A where A is square (NaN where A is not finite).\"\"\"
    count = ts.size
    out = np.full((count, 7), np.nan)
    buf = np.zeros(DYN)
    cbuf = np.zeros(CON)
    ebuf = np.zeros(1)
    previous = np.zeros((M_H, N_P))
    for i in range(count):
        p, v = ps[i], vs[i]
        if not (np.all(np.isfinite(p)) and np.all(np.isfinite(v))):
            continue
        cbuf[:] = 0.0
        _constraints(p, params, ts[i], cbuf)
        Phi = cbuf[:M_H]
        Phi_p = cbuf[M_H:M_H + M_H * N_P].reshape((M_H, N_P))
        Cm = cbuf[M_H + M_H * N_P:M_H + M_H * N_P + C * N].reshape((C, N))
        c_free = cbuf[M_H + M_H * N_P + C * N:]
        out[i, 0] = np.max(np.abs(Phi)) if M_H else 0.0
        out[i, 1] = np.max(np.abs(mv(Cm, v) + c_free)) if C else 0.0
        buf[:] = 0.0
        _dynamics(ts[i], p, v, params, buf)
        if ok[i]:
            xi = buf[DYN_AT[5]:DYN_AT[6]]
            out[i, 2] = np.max(np.abs(mv(Cm, vdots[i]) + xi)) if C else 0.0
        Ad = buf[DYN_AT[6]:DYN_AT[7]]
        if A_CONSTANT and i > 0 and not np.isnan(out[0, 6]):  # the same A at every point
            out[i, 6] = out[0, 6]
        elif np.all(np.isfinite(Ad)):
            A = np.ascontiguousarray(Ad.reshape((N_P, N)))
            out[i, 6] = sigma_ratio(np.ascontiguousarray(A.T))
            if N_P == N and det(A) < 0.0:  # signed: a sign change between rows crosses a singular A
                out[i, 6] = -out[i, 6]
        ebuf[0] = 0.0
        _energy(p, v, params, ebuf)
        out[i, 3] = ebuf[0]
        if M_H:
            out[i, 4] = sigma_ratio(Phi_p)
            out[i, 5] = det(mm(Phi_p, previous.T)) if i > 0 else 1.0
            previous[:, :] = Phi_p
    return out
"""


def affine_terms(add, moving, l, square, left):
    """Lines of evaluate for rheonomic or affine rows: d_0 = A^+ g_t (zero unless the embedding
    moves; g_t at G_T_AT of the embedding kernel's output) and c_nh at the time t. square: the
    line solving a square A for {0} in place (None: A is not square, ``left`` its least squares)."""
    if moving:
        add("    eb = np.zeros(G_T_AT + N_P)")
        add("    _embedding(q, params, t, eb)")
        add("    d_0 = eb[G_T_AT:].copy()")
        add(square.format("d_0") if square else "    d_0, ok = " + left.format("d_0"))
        add("    if not ok:")
        add("        return False")
    else:
        add("    d_0 = np.zeros(N)")
    if l:
        add("    cb_t = np.zeros(CON)")
        add("    _constraints(p, params, t, cb_t)")
        add("    c_nh = cb_t[CON - L:]")
