"""``python -m formulations.workbench.cli``: the pfaff command line."""
import sys

from .main import main

sys.exit(main())
