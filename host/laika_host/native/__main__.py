"""`python -m laika_host.native ARGS`: what the installed launcher runs (skips click)."""

import sys

from .transport.host_main import run_host

sys.exit(run_host(sys.argv[1:]))
