"""Sphinx configuration of pfaff's documentation site.

Build it from the repository root (extra ``docs``)::

    python -m sphinx -W -b html docs docs/_build/html

The Markdown pages of ``docs/`` are read by MyST unchanged (the tests run their code); the API
reference is generated from the docstrings (numpydoc); the gallery (``docs/gallery``) is executed
at build time by sphinx-gallery, each example within its time budget; the command line is
documented from its parser (``docs/_ext/cli_reference.py``).
"""
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parent))  # the packages, where the checkout is not installed
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("PFAFF_BACKGROUND_COMPILE", "0")  # a build never leaves a compile behind

import formulations  # noqa: E402
from sphinx_gallery.sorting import ExplicitOrder  # noqa: E402
from inventories import intersphinx_mapping  # noqa: E402,F401  (the stored names: the same build offline)

project = "pfaff"
author = "the pfaff authors"
copyright = "the pfaff authors, BSD-3-Clause"
release = formulations.__version__  # the one version source: the package metadata
version = release

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "cli_reference",
]

root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "gallery", "**/.ipynb_checkpoints", "auto_gallery/**/*.ipynb"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

html_theme = "furo"
html_title = f"pfaff {release}"
html_static_path = []

# MyST: the pages' $…$ and $$…$$ mathematics, their heading anchors, and links between pages
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]  # the measured tables of docs/figures start at level 3, as they are written

# the notebooks are executed at build time, as the tests execute them
nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True

# the API reference
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"  # only the aliases below become links; free text stays text
numpydoc_xref_aliases = {
    "System": "systems.System",
    "Trajectory": "formulations.Trajectory",
    "Formulation": "formulations.Formulation",
    "Comparison": "formulations.Comparison",
    "ndarray": "numpy.ndarray",
    "array": "numpy.ndarray",
    "Expr": "sympy.core.expr.Expr",
    "Figure": "matplotlib.figure.Figure",
}
nitpicky = True

# the gallery: executed at build time, each example within its budget (said in the example)
sphinx_gallery_conf = {
    "examples_dirs": ["gallery"],
    "gallery_dirs": ["auto_gallery"],
    "filename_pattern": r"/plot_",
    "subsection_order": ExplicitOrder(["gallery/beginner", "gallery/intermediate", "gallery/advanced"]),
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "reset_modules": ("matplotlib",),
    "abort_on_example_error": True,
    "write_computation_times": False,  # each example says its own time; the summary page would load scripts from a CDN
}
