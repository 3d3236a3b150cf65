"""The workbench on top of the formulations, solvers and results, one feature per folder: the
``pfaff`` command line (``cli``), side-by-side comparison with its reports, views and animations
(``comparison``), step-by-step derivations and code export (``derivation``), ensembles and sweeps
(``ensembles``); beside them the plots, the progress line and the report folders they share."""
