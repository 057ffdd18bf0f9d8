import sys

from pyshim.cli import main

sys.exit(main())
