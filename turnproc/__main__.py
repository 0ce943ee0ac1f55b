import sys

from turnproc.cli import main

sys.exit(main())
