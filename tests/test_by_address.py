"""Calls through an address (formulations.kernels.by_address) and models without reference counts
(formulations.kernels.borrowed.borrowed_items), against the same calls made directly."""
import numpy as np
import pytest

from systems.numeric import codegen

pytestmark = pytest.mark.skipif(not codegen.available(), reason="numba is not installed")


def _functions():
    import numba

    from formulations.kernels.borrowed import borrowed_items
    from formulations.kernels.by_address import call_rhs

    @numba.njit
    def rhs(model, t, y, params, extra, out, work):
        scale, offsets = model[0], model[1]
        if t < 0.0:
            raise ValueError("negative time")
        for i in range(y.size):
            out[i] = scale * y[i] + offsets[i] + params[0] * t
        work[0] += 1.0
        return out[0] > 0.0

    @numba.njit
    def through_address(model, t, y, params, extra, out, work, calls):
        model = borrowed_items(model)
        ok = True
        for _ in range(calls):
            ok = call_rhs(model[2], (model, t, y, params, extra, out, work))
        return ok

    @numba.njit
    def read_borrowed(model):
        model = borrowed_items(model)
        return model[0] * model[1][1]

    return rhs, through_address, read_borrowed


def _model_with_address(rhs, offsets):
    import numba

    from formulations.kernels.by_address import address

    model = (2.0, offsets, 0)
    return (2.0, offsets, address(rhs, numba.typeof(model)))


def _arrays():
    y, params, extra = np.array([1.0, -2.0, 3.0]), np.array([0.5]), np.zeros(0)
    return y, params, extra, np.zeros(3), np.zeros(1)


def test_a_call_through_the_address_gives_what_the_direct_call_gives():
    rhs, through_address, _ = _functions()
    model = _model_with_address(rhs, np.array([0.1, 0.2, 0.3]))
    y, params, extra, out, work = _arrays()
    ok = through_address(model, 1.5, y, params, extra, out, work, 3)
    expected, work_direct = np.zeros(3), np.zeros(1)
    ok_direct = rhs(model, 1.5, y, params, extra, expected, work_direct)
    assert ok == ok_direct is True
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(out, 2.0 * y + np.array([0.1, 0.2, 0.3]) + 0.75)
    assert work[0] == 3.0  # called three times, writing into the caller's arrays


def test_an_exception_in_the_callee_reaches_the_caller():
    rhs, through_address, _ = _functions()
    model = _model_with_address(rhs, np.zeros(3))
    y, params, extra, out, work = _arrays()
    with pytest.raises(ValueError, match="negative time"):
        through_address(model, -1.0, y, params, extra, out, work, 1)


def test_other_argument_types_are_refused_when_the_caller_compiles():
    import numba
    from numba.core.errors import TypingError

    from formulations.kernels.by_address import call_rhs

    @numba.njit
    def wrong(model, y2d):
        return call_rhs(model[2], (model, 0.0, y2d, y2d, y2d, y2d, y2d))

    with pytest.raises(TypingError, match="compiled for"):
        wrong((1.0, np.zeros(1), 0), np.zeros((2, 2)))


def test_a_callee_that_returns_another_type_is_refused():
    import numba

    from formulations.kernels.by_address import address

    @numba.njit
    def rhs(model, t, y, params, extra, out, work):
        return 1

    with pytest.raises(TypeError, match="rhs returns int64; its callers through the address read bool"):
        address(rhs, numba.typeof((1.0,)))


def test_a_stored_model_reads_back_with_its_arrays_and_functions_and_no_reference_counts():
    """store_model keeps no reference to the model's arrays (borrowed_items): reading it back a
    thousand times leaves their counts alone, where counted references would be dropped at every
    read; a first-class function in it is called as stored."""
    import sys

    import numba

    from formulations.kernels.by_address import load_model, store_model

    @numba.cfunc("float64(float64)")
    def twice(x):
        return 2.0 * x

    offsets = np.array([1.0, 4.0])
    model = (3.0, offsets, twice, 7, True)
    model_type = numba.typeof(model)
    kind = model_type

    @numba.njit
    def read(where, count):
        total = 0.0
        for _ in range(count):
            stored = load_model(where, kind)
            total += stored[0] * stored[1][1] + stored[2](1.0) + stored[3] + stored[4]
        return total

    memory, where = store_model(model, model_type)
    before = sys.getrefcount(offsets)
    assert read(where, 1000) == 1000 * (3.0 * 4.0 + 2.0 + 7 + 1)
    assert sys.getrefcount(offsets) == before
    with pytest.raises(TypeError, match="C-contiguous"):
        store_model((np.zeros((3, 3))[:, 1],), numba.typeof((np.zeros((3, 3))[:, 1],)))


def test_kernels_called_by_address_refuse_arguments_they_would_read_past():
    """A system kernel is called from Python through its address (systems.numeric.calls), which carries
    no signature: Kernel checks the arguments' count, shapes and the output before the call."""
    import sympy as sp

    x, y, s = sp.symbols("x y s")
    kernel = codegen.compile_kernel("address_checks", [("p", [x, y]), ("s", s)], [x * s, y + s, x * y])
    out = np.zeros(3)
    kernel(np.array([2.0, 3.0]), 0.5, out)
    assert np.array_equal(out, [1.0, 3.5, 6.0])
    kernel([2, 3], 1, out)  # numbers converted to the kernel's types
    assert np.array_equal(out, [2.0, 4.0, 6.0])
    for args, what in [((np.array([2.0]), 0.5, out), "argument 0"), ((np.ones((2, 2)), 0.5, out), "argument 0"),
                       ((np.ones(2), 0.5, np.zeros(2)), "output"), ((np.ones(2), 0.5, np.zeros(3, np.float32)), "output"),
                       ((np.ones(2), 0.5, np.zeros(3)[::-1]), "output"), ((np.ones(2), out), "arguments")]:
        with pytest.raises(TypeError, match=what):
            kernel(*args)
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match="writable"):
        kernel(np.ones(2), 0.5, frozen)
