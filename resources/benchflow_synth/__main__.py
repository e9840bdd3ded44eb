"""`python -m benchflow_synth …` (resources/ on the path): see cli.py."""

import sys

from .cli import main

sys.exit(main())
