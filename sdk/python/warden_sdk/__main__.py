"""`python -m warden_sdk build`: see `warden_sdk.build`."""

from .build import main

raise SystemExit(main())
