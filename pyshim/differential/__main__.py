"""`python3 -m pyshim.differential`: see pyshim.differential.checks."""

import os
import sys

from pyshim.differential.checks import main

os.environ.setdefault("PYTHONUNBUFFERED", "1")
sys.exit(main())
