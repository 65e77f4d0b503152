"""``python -m fuzz``: the same as the ``fuzz`` command."""

import sys

from fuzz.cli import main

sys.exit(main())
