"""The version of the installed package, read from its metadata: pyproject.toml is its one source
(``formulations.__version__``, ``pfaff --version``, the versions an ensemble result records)."""
from __future__ import annotations


def version() -> str:
    """The installed pfaff's version; "unknown" for a checkout that is not installed."""
    from importlib.metadata import PackageNotFoundError, version as installed

    try:
        return installed("pfaff")
    except PackageNotFoundError:
        return "unknown"
