"""The workbench on top of the formulations, solvers and results: side-by-side comparison
(compare), report folders (report), plots, views and animations, step-by-step derivations
(derivation) and the ``pfaff`` command line (cli)."""
