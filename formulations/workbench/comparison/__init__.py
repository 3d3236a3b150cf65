"""Side-by-side comparison of configurations (``compare``), the pilot estimate of long runs
(``estimate``), the report folder (``report``), system views (``views``) and animations
(``animation``)."""
