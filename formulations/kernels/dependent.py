"""The model of the dependent formulation's compiled evaluation (formulations.kernels.compiled.dependent):
its system's sizes, the work-array layout, the program of the saddle's sparse LU and the sparse
products C v and A v, and the system's kernels."""
from __future__ import annotations

import numpy as np
import sympy as sp

from .layout import Layout, primitive_kernels
from .bound import model_value
from .sparse_pattern import block_pattern, symbolic_lu


def dependent_model(formulation):
    """The model (a formulations.kernels.compiled.dependent.Model) of ``formulation``'s system, the
    addresses of the functions called through them left 0 (filled in by kernels.bound.BoundModule)."""
    from .compiled.dependent import Model
    from .compiled.fields import LU_FIELDS

    sysm, num = formulation.system, formulation.num
    lay = Layout(sysm)
    nonzero = num.nonzero("dynamics")
    program, (plus, minus) = saddle_program(nonzero, lay)
    o, n, c, n_p = lay.dyn, lay.n, lay.c, lay.n_p
    size, m_a, dyn, con = n + c, lay.m + len(lay.blocks), lay.dyn[-1], lay.con[-1]
    # evaluate's work array: the dynamics output, K (size, size) and b, the constraints output, then
    # the dense solve's spare room and the sparse LU's values and solution
    spare = dyn + size * size + size + con
    sparse = spare + size * size + size
    eval_work = sparse + program.nnz + size
    scratch = c + n_p + 2 * n  # rhs's lambda, p, v and v' before evaluate's work
    blocks = np.array([list(b) for b in lay.blocks], dtype=np.int64).reshape((-1, 4))
    values = dict(
        N_P=n_p, N=n, C=c, M_H=lay.m, L=lay.l, BLOCKS=blocks, DYN=dyn, CON=con, DYN_AT=np.array(o, dtype=np.int64),
        A_CONSTANT=not (sp.Matrix(sysm.A).free_symbols & (set(sysm.coordinates) | {sysm.time})), M_A=m_a,
        SIZE=size, SPARE=spare, SPARSE=sparse, EVAL_WORK=eval_work,
        DAE_WORK=eval_work + 3 * n_p + n + m_a * (n_p + 2),  # dae_residual: p, Y's positions, zeros, v, Psi, Psi_y
        SCRATCH=scratch, WORK=scratch + eval_work, KS_PLUS=np.array(plus, dtype=np.int64),
        KS_MINUS=np.array(minus, dtype=np.int64), KS_NNZ=program.nnz, REJECT_FAILED_STAGES=False,
        **primitive_kernels(num),
        KINEMATICS=num.kernel("kinematics"), HOLONOMIC_CHART=num.kernel("holonomic_chart"),
        ADDRESS_EVALUATE=0, ADDRESS_RHS=0, ADDRESS_POST_STEP=0)
    values.update({f"KS_{name}": np.ascontiguousarray(getattr(program, name.lower()), dtype=np.int64)
                   for name in LU_FIELDS})
    for prefix, at, rows in (("CV", o[4], c), ("AV", o[6], n_p)):  # the non-zeros of C and A for sparse_mv
        row, col = np.nonzero(block_pattern(nonzero, at, rows, n))
        values.update({f"{prefix}_ROW": row.astype(np.int64), f"{prefix}_INDEX": (at + row * n + col).astype(np.int64),
                       f"{prefix}_COL": col.astype(np.int64)})
    return Model(**{name: model_value(getattr(value, "compiled", value)) for name, value in values.items()})


def dependent_functions():
    """The compiled functions of the dependent formulation (formulations.kernels.compiled: evaluate,
    post_step, rhs, the passes over recorded points, the entry points of the loops, IDA and the
    augmented Lagrangian), each taking a Model first, as one namespace (for kernels.bound.BoundModule)."""
    from types import SimpleNamespace

    from .compiled import dependent, dependent_steps, passes

    names = {passes: ("workspace", "project_all", "evaluate_all", "check_all"),
             dependent: ("evaluate", "post_step", "rhs", "rhs_at", "post_step_at"),
             dependent_steps: ("dae_residual_at", "dae_jacobian_at", "al_run_at")}
    return SimpleNamespace(MODEL_TYPE=dependent.MODEL_TYPE, EVALUATION=dependent.EVALUATION,
                           **{name: getattr(module, name) for module, listed in names.items() for name in listed})


def saddle_program(nonzero, lay):
    """(SparseLU of K = [[M, C^T - F], [C, 0]], (plus, minus)): the program of its factorization
    on the structural non-zeros of M, C and F_lambda (``nonzero``: those of the dynamics output,
    NumericModel.nonzero("dynamics")), and per entry of its values the index into the dynamics
    buffer to add (-1: none) and to subtract (-1: none)."""
    n, c, o = lay.n, lay.c, lay.dyn
    C = block_pattern(nonzero, o[4], c, n)
    F = block_pattern(nonzero, o[3], n, c)
    pattern = np.zeros((n + c, n + c), dtype=bool)
    pattern[:n, :n] = block_pattern(nonzero, o[0], n, n)
    pattern[n:, :n] = C
    pattern[:n, n:] = C.T | F
    program = symbolic_lu(pattern)
    plus, minus = [], []
    for i, j in program.entries:
        if i < n and j < n:
            plus.append(o[0] + i * n + j if pattern[i, j] else -1)
            minus.append(-1)
        elif i < n:  # C^T - F
            plus.append(o[4] + (j - n) * n + i if C[j - n, i] else -1)
            minus.append(o[3] + i * c + (j - n) if F[i, j - n] else -1)
        elif j < n:
            plus.append(o[4] + (i - n) * n + j if pattern[i, j] else -1)
            minus.append(-1)
        else:
            plus.append(-1)
            minus.append(-1)
    return program, (plus, minus)
