import sys

from .dask_driver import main

sys.exit(main())
