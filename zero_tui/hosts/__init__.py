"""Other machines' Zero stores, mirrored read-only over OpenSSH and rsync (no Textual).

`registry`: the hosts the user added (zero-tui's config, never Zero's files) and where each
mirror and its sync state live in zero-tui's cache. `ssh_link`: one ssh connection for a
sync (ControlMaster), and ssh's failures worded in one line. `mirror`: a sync, rsync over
that connection, written so that a reader of the mirror never sees a half-synced tree."""
