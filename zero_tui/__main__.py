from zero_tui.cli import run

run()
