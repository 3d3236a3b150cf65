"""The sparse LU program (formulations.kernels.sparse_pattern, run by sparse_linalg) solves what
numpy's dense LAPACK solve solves, touches only the pattern and its fill-in, and refuses a pivot
that vanishes; the dependent formulation's saddle-point matrix takes that path."""
import numpy as np
import pytest

from systems.numeric import codegen

pytestmark = pytest.mark.skipif(not codegen.available(), reason="numba is not installed")


def _saddle(rng, n, c, density):
    """A random saddle-point matrix [[M, C^T], [C, 0]]: M symmetric positive definite with a random
    pattern, C of full row rank with a random pattern."""
    pattern = rng.random((n, n)) < density
    pattern = pattern | pattern.T | np.eye(n, dtype=bool)
    B = rng.normal(size=(n, n)) * pattern
    M = B @ B.T * 0.1 + np.diag(rng.uniform(1.0, 3.0, n))
    M[~(pattern | (np.abs(M) > 0))] = 0.0
    C = rng.normal(size=(c, n)) * (rng.random((c, n)) < density)
    C[np.arange(c), rng.permutation(n)[:c]] = rng.uniform(1.0, 2.0, c)  # full row rank in practice
    K = np.zeros((n + c, n + c))
    K[:n, :n], K[:n, n:], K[n:, :n] = M, C.T, C
    return K


def _program_solve(K, b):
    from formulations.kernels.sparse_linalg import sparse_factor, sparse_solve
    from formulations.kernels.sparse_pattern import symbolic_lu

    program = symbolic_lu(K != 0)
    arrays = [getattr(program, name) for name in ("pivot", "lower_ptr", "lower", "lower_row", "update_ptr",
                                                  "update_target", "update_left", "update_right", "upper_ptr",
                                                  "upper", "upper_col")]
    vals = np.array([K[i, j] for i, j in program.entries])
    x = b.copy()
    ok = sparse_factor(vals, *arrays) and sparse_solve(vals, x, *arrays)
    return program, ok, x


@pytest.mark.parametrize("n, c, density", [(6, 3, 0.3), (12, 5, 0.15), (30, 20, 0.08), (5, 0, 0.5)])
def test_program_solves_as_numpy_does(n, c, density):
    rng = np.random.default_rng(n + c)
    for _ in range(5):
        K = _saddle(rng, n, c, density)
        b = rng.normal(size=n + c)
        program, ok, x = _program_solve(K, b)
        assert ok
        want = np.linalg.solve(K, b)
        assert np.max(np.abs(x - want)) <= 1e-11 * max(1.0, np.max(np.abs(want)))
        assert program.nnz <= (n + c) ** 2


def test_program_touches_only_the_pattern_and_its_fill_in():
    """A tridiagonal matrix has no fill-in: its program holds exactly its 3 s - 2 entries and
    2 (s - 1) multiply-adds; an arrow matrix ordered with the dense row last fills nothing either."""
    from formulations.kernels.sparse_pattern import symbolic_lu

    s = 50
    tri = np.eye(s, dtype=bool) | np.eye(s, k=1, dtype=bool) | np.eye(s, k=-1, dtype=bool)
    program = symbolic_lu(tri)
    assert program.nnz == 3 * s - 2
    assert program.operations == 2 * (s - 1)
    arrow = np.eye(s, dtype=bool)
    arrow[-1, :] = arrow[:, -1] = True
    assert symbolic_lu(arrow).nnz == 3 * s - 2


def test_program_refuses_a_vanishing_pivot():
    """[[0, 1], [1, 0]] needs pivoting: the program says so instead of dividing by zero, and a
    singular matrix is refused at its last pivot."""
    _, ok, _ = _program_solve(np.array([[0.0, 1.0], [1.0, 0.0]]), np.ones(2))
    assert not ok
    _, ok, _ = _program_solve(np.array([[1.0, 2.0], [2.0, 4.0]]), np.ones(2))
    assert not ok


@pytest.mark.xdist_group("compiled")  # the worker that compiles the dependent formulation's module anyway
def test_dependent_saddle_point_matrix_takes_the_sparse_path():
    """The rolling disc's K = [[M, C^T], [C, 0]] (M diagonal) is solved by the program: the fused
    module's sparse solve accepts it and gives numpy's v' and lambda; the n-link pendulum's program
    grows linearly with n (banded Schur complement), not as (n + c)^2."""
    import formulations as F
    import systems
    from formulations.kernels.layout import Layout
    from formulations.kernels.compiled.dependent import _sparse_saddle
    from formulations.kernels.dependent import saddle_program
    from formulations.solvers.compiled_rk import compiled_module
    from systems.numeric.model import compile_system

    system = systems.load("rolling_disc")
    form = F.create("dependent", system, backend="compiled")
    p, v = system.default_state()
    y = form.initial_state(p, v)
    module = compiled_module(form)
    work = np.zeros(module.EVAL_WORK)
    out, lam = np.empty_like(y), np.empty(system.m + system.l)
    pp, vv, vdot = np.empty(len(p)), np.empty(system.n), np.empty(system.n)
    assert module.evaluate(0.0, y, np.asarray(form.par, float), form.compiled_arguments(), out, lam, pp, vv, vdot,
                           True, work)
    reference = F.create("dependent", system)
    b = np.array(reference.saddle(0.0, y).rhs, float)
    assert _sparse_saddle(module.model, work[:module.DYN], b, work)  # True: no pivot fell short
    expected = reference.evaluate(0.0, y)
    assert np.allclose(b, np.concatenate([expected.vdot, expected.lam]), rtol=1e-12, atol=1e-12)
    sizes = {}
    for n in (10, 20):
        pendulum = systems.load("n_pendulum", n=n)
        program, _ = saddle_program(compile_system(pendulum).nonzero("dynamics"), Layout(pendulum))
        sizes[n] = (program.nnz, program.operations)
    assert sizes[20][0] <= 2.2 * sizes[10][0] and sizes[20][1] <= 2.2 * sizes[10][1]
