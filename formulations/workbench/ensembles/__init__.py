"""Ensembles: one configuration over many initial states or parameter values (``ensemble``), what
varies (``variations``), one member's run (``members``), where members run (``execution``: this
process, a local pool or Dask), formulations side by side over an ensemble (``compare``) and the
figures of a sweep (``maps``)."""
