"""Zero's commands run on the host that owns a mirrored session, over ssh (no Textual).

`host_runs`: a prompt continued there (`zero exec --resume ID` under `run_on_host.sh`,
streamed back through the agent engine's run), the same cancel and the one-run rule
checked on that host, and the session's mirror brought level after. `host_sessions`: the
session operations Zero has a command for, run there, and one line for those it lacks."""
