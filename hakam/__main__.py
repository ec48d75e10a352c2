import sys

from hakam.cli import main

sys.exit(main())
