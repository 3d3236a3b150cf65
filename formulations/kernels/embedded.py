"""The model of the reduced and minimal formulations' compiled evaluation
(formulations.kernels.compiled.embedded): its system's sizes, the flags of its kind (minimal or
reduced; identity, embedding or chart; rheonomic rows; a moving embedding; a square A; non-ideal
rows), the work-array layout, the program of a square A's sparse LU, and the system's kernels."""
from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from ..coordinates.charts import Atlas
from ..errors import CapabilityError
from .layout import Layout, primitive_kernels
from .bound import model_value
from .sparse_pattern import block_pattern, symbolic_lu


def embedded_model(formulation, minimal: bool):
    """The model (a formulations.kernels.compiled.embedded.Model) of the reduced (``minimal``
    False) or minimal formulation ``formulation``, the addresses of the functions called through
    them left 0 (filled in by kernels.bound.BoundModule)."""
    from .compiled import embedded as module
    from .compiled.fields import LU_FIELDS

    sysm, num, geo = formulation.system, formulation.num, formulation.geometry
    quasi = getattr(formulation, "quasi", None) if minimal else None
    charts = isinstance(geo, Atlas)
    if charts and minimal:
        raise CapabilityError("the compiled minimal formulation runs through an embedding only, not on charts")
    if sysm.is_rheonomic and charts:
        raise CapabilityError("the compiled modules of rheonomic or affine constraints run through an embedding, not "
                              "on charts")
    lay = Layout(sysm)
    n_p, n, c, k, k_q, r = lay.n_p, lay.n, lay.c, geo.k, len(geo.q_names), sysm.r
    square = n_p == n
    program = symbolic_lu(block_pattern(num.nonzero("kinematics"), 0, n_p, n) if square else np.zeros((0, 0), bool))
    chart_at = np.cumsum([0, n_p, n_p * k, k_q * k, n_p * n, c * n]).tolist()  # g, g_q A_q, A_q, A, C
    geometry = module.CHART if charts else module.IDENTITY if geo.trivial else module.EMBEDDING
    m_a = geo.m_a if charts else 0
    hc = m_a * (n_p + 2)
    w_h = lay.dyn[-1]
    w_d = w_h + hc + 2 * m_a + m_a * m_a  # the chart's part: its kernel's output, h, S's row swaps, S
    tmp = w_d + n_p * k if charts else w_h
    eval_work = tmp + _temporaries(lay, geometry, module, k, k_q, r, minimal, program.nnz)
    scratch = c + n_p + 2 * n  # rhs's lambda, p, v and v' before evaluate's work
    embedded = geometry == module.EMBEDDING
    moving = sysm.is_rheonomic and geo.moving
    blocks = np.array([list(b) for b in geo.unit_blocks], dtype=np.int64).reshape((-1, 4))
    values = dict(
        N_P=n_p, N=n, C=c, M_H=lay.m, L=lay.l, DYN=lay.dyn[-1], CON=lay.con[-1],
        DYN_AT=np.array(lay.dyn, dtype=np.int64),
        A_CONSTANT=not (sp.Matrix(sysm.A).free_symbols & (set(sysm.coordinates) | {sysm.time})), K=k, K_Q=k_q,
        R=r, QBLOCKS=blocks, GEOMETRY=geometry, TIMED=sysm.is_rheonomic, MOVING=moving,
        SQUARE=square, NONIDEAL=bool(formulation.nonideal), QUASI=quasi is not None,
        CHART_AT=np.array(chart_at, dtype=np.int64),
        G_T_AT=n_p + n_p * k_q + k_q * k, M_A=m_a, HC=hc, W_H=w_h, W_Y=w_h + hc, W_S=w_h + hc + m_a,
        W_B=w_h + hc + 2 * m_a, W_D=w_d, TMP=tmp, EVAL_WORK=eval_work, SCRATCH=scratch, WORK=scratch + eval_work,
        AL_ROW=np.array([i if (i, j) in program.structural else -1 for i, j in program.entries], dtype=np.int64),
        AL_COL=np.array([j if (i, j) in program.structural else -1 for i, j in program.entries], dtype=np.int64),
        AL_NNZ=program.nnz, REJECT_FAILED_STAGES=charts,
        **primitive_kernels(num),
        KINEMATICS=num.kernel("kinematics"),
        CHART=num.kernel("chart") if embedded else _nothing(False, False, True),
        EMBEDDING=num.kernel("embedding") if moving else _nothing(False, False, True),
        EMBEDDING_ACC=num.kernel("embedding_acc") if embedded else _nothing(False, False, False, True),
        HOLONOMIC_CHART=num.kernel("holonomic_chart") if charts else _nothing(False, False, False, True),
        SPEEDS=quasi.function("compiled").kernel if quasi is not None else _nothing(False, False, False),
        ADDRESS_EVALUATE=0, ADDRESS_RHS=0, ADDRESS_POST_STEP=0)
    values.update({f"AL_{name}": np.ascontiguousarray(getattr(program, name.lower()), dtype=np.int64)
                   for name in LU_FIELDS})
    return module.Model(**{name: model_value(getattr(value, "compiled", value)) for name, value in values.items()})


def _temporaries(lay, geometry, module, k, k_q, r, minimal, nnz) -> int:
    """The floats an evaluation's temporaries take (compiled.embedded.evaluate, in its order):
    q; the geometry's (A, C and D; the chart kernel's output; D and A's sparse factors); the minimal
    formulation's Y and Y' v, [C_bar_nh; E] and D_bar; d_0 and w; the embedding's acceleration and gamma; h;
    the minimal system's gamma_bar, T, tau, the residual, M T and its matrix and right-hand side."""
    n_p, n, c, l = lay.n_p, lay.n, lay.c, lay.l
    factors = n_p * k + nnz if n_p == n else 0
    if geometry == module.IDENTITY:
        geometric = n_p * n + lay.con[-1] + n * n
    elif geometry == module.EMBEDDING:
        geometric = n_p + n_p * k + k_q * k + n_p * n + c * n + factors
    else:
        geometric = lay.con[-1] + n_p * n + factors
    rows = l + r if minimal else 0
    system = rows + 2 * n * r + 2 * n + max(n * (r + c), r * r + r) if minimal else 0
    speeds = r * n + r if minimal else 0
    return k_q + geometric + speeds + rows * (k + r) + n + k + n_p + n + n + system


@functools.lru_cache(maxsize=None)
def _nothing(*scalars_first):
    """A kernel of the given arguments (scalars and vectors, the output last) that writes nothing:
    the placeholder of a kernel the system does not have (compiled once per machine)."""
    from systems.numeric.codegen import compile_kernel

    x, t = sp.Symbol("x"), sp.Symbol("t")
    return compile_kernel("nothing", [(f"a{i}", t if scalar else [x]) for i, scalar in enumerate(scalars_first)], [])


def embedded_functions(evaluation: str):
    """The compiled functions around ``evaluation`` ("evaluate_reduced", "evaluate_minimal" or
    "evaluate_chart": the reduced formulation on charts; the formulation names its own) from
    formulations.kernels.compiled: the evaluation as ``evaluate``, its post_step, rhs, the passes
    over recorded points, the entry points of the loops, and the minimal formulation's choice_all or
    the chart's new_chart, each taking an embedded_model first, as one namespace (for
    kernels.bound.BoundModule); EVALUATION names what the evaluation is made of."""
    from types import SimpleNamespace

    from .compiled import embedded, passes

    if evaluation not in embedded.EVALUATION:
        raise ValueError(f"embedded_functions got {evaluation!r} but expected one of: {', '.join(embedded.EVALUATION)}")
    own = {"evaluate_reduced": {}, "evaluate_minimal": {"choice_all": embedded.choice_all},
           "evaluate_chart": {"post_step": embedded.post_step_chart, "new_chart": embedded.new_chart}}[evaluation]
    return SimpleNamespace(
        MODEL_TYPE=embedded.MODEL_TYPE, EVALUATION=embedded.EVALUATION[evaluation],
        evaluate=getattr(embedded, evaluation), post_step=own.get("post_step", embedded.post_step),
        rhs=passes.rhs, rhs_at=embedded.rhs_at, post_step_at=embedded.post_step_at, workspace=passes.workspace,
        project_all=passes.project_all, evaluate_all=passes.evaluate_all, check_all=passes.check_all,
        **{name: function for name, function in own.items() if name != "post_step"})
