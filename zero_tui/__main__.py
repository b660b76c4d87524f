from zero_tui.cli import main

raise SystemExit(main())
