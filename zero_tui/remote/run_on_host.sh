# zero-tui's wrapper around a `zero` command on a host it reaches over ssh. POSIX sh only:
# it is sent as `sh -c` with its arguments, and the host needs nothing of zero-tui.
#
# Arguments: MODE GRACE STORE SESSION_ID WORKSPACE INPUT, then zero's arguments.
#   MODE run: `zero exec --cwd WORKSPACE ARGS...` in the background; stdin carries, after
#     the prompt's stream-json line when INPUT is 1, zero-tui's control lines: `i` sends
#     zero a SIGINT, `k` kills zero and every process under it. Its end (zero-tui exited or
#     the link dropped) is an `i`, then that kill once GRACE seconds have passed.
#   MODE command: `zero ARGS...` in the foreground, its stdin closed (e.g. sessions rewind).
# Both first refuse a session already running on this host (a `zero` process naming it,
# or zero-tui's claim on it), then hold that claim themselves until zero has exited.
# Its own lines go to stderr, each starting `zero-tui-remote: `: `started PID`,
# `busy zero-process PID`, `busy zero-tui PID`, `no-zero NAME`, `store-elsewhere`, `note TEXT`.
mode=$1 grace=$2 store=$3 id=$4 workspace=$5 input=$6
shift 6
say() { printf 'zero-tui-remote: %s\n' "$*" >&2; }
zero=${ZERO_BIN:-zero}
if ! command -v "$zero" >/dev/null 2>&1; then
  say "no-zero $zero"
  exit 127
fi
# Zero writes only its default root, $XDG_DATA_HOME/zero/sessions
case $store in
*/zero/sessions) XDG_DATA_HOME=${store%/zero/sessions} && export XDG_DATA_HOME ;;
*) say "store-elsewhere" && exit 2 ;;
esac

# $1 and every process under it, as ps sees them now
tree() {
  ps -eo pid=,ppid= 2>/dev/null | awk -v root="$1" '
    { parent[$1] = $2 }
    END {
      print root; n = 1; queue[1] = root
      while (n > 0) {
        p = queue[n--]
        for (c in parent) if (parent[c] == p && c != p) { print c; queue[++n] = c }
      }
    }'
}
kill_tree() {
  for round in 1 2; do
    # shellcheck disable=SC2046 # one pid a word
    kill -KILL $(tree "$1") 2>/dev/null
  done
}

claim=
if [ -n "$id" ]; then
  other=$(ps -eo pid=,args= 2>/dev/null | awk -v id="$id" -v bin="${zero##*/}" '
    {
      named = 0
      for (i = 2; i <= 3 && i <= NF; i++) { n = $i; sub(/.*\//, "", n); if (n == "zero" || n == bin) named = 1 }
      if (!named) next
      for (i = 2; i <= NF; i++) {
        if ($i == "--") break
        if ($i == "--resume=" id || $i == "--init-session-id=" id ||
            (($i == "--resume" || $i == "--init-session-id") && $(i + 1) == id)) { print $1; exit }
      }
    }')
  if [ -n "$other" ]; then
    say "busy zero-process $other"
    exit 75
  fi
  # zero-tui's run registry, as zero-tui lays it out on this host (agent/running.py)
  if [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -d "$XDG_RUNTIME_DIR" ]; then
    runs=$XDG_RUNTIME_DIR/zero-tui/runs
  else
    runs=${ZERO_TUI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/zero-tui}/runtime/runs
  fi
  resolved=$(cd "$store" 2>/dev/null && pwd -P) || resolved=$store
  key=$(printf %s "$resolved" | { sha256sum 2>/dev/null || shasum -a 256 2>/dev/null; } | cut -c1-20)
  if [ -n "$key" ] && mkdir -p "$runs/$key" 2>/dev/null; then
    claim=$runs/$key/$id.run
    if command -v flock >/dev/null 2>&1 && exec 9>>"$claim"; then
      if ! flock -n 9; then
        say "busy zero-tui $(sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p' "$claim" 2>/dev/null)"
        exit 75
      fi
    else
      # no flock(1): a claim whose process lives
      pid=$(sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p' "$claim" 2>/dev/null)
      if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        say "busy zero-tui $pid"
        exit 75
      fi
    fi
    printf '{"pid": %s, "sessionId": "%s"}' "$$" "$id" >"$claim"
  fi
fi

if [ "$mode" = command ]; then
  cd / && "$zero" "$@" </dev/null
  code=$?
  [ -n "$claim" ] && : >"$claim"
  exit "$code"
fi

if [ -z "$workspace" ] || ! cd "$workspace" 2>/dev/null; then
  [ -n "$workspace" ] && say "note the session's workspace $workspace is gone on this host: running in $HOME"
  workspace=$HOME
  cd "$workspace" || exit 2
fi
exec 3<&0
if [ "$input" = 1 ]; then
  IFS= read -r line || exit 2
  printf '%s\n' "$line" | "$zero" exec --cwd "$workspace" "$@" 3<&- &
else
  "$zero" exec --cwd "$workspace" "$@" </dev/null 3<&- &
fi
agent=$!
say "started $agent"
(
  while IFS= read -r command <&3; do
    case $command in
    i) kill -INT "$agent" 2>/dev/null ;;
    k) kill_tree "$agent" ;;
    esac
  done
  kill -INT "$agent" 2>/dev/null
  waited=0
  while [ "$waited" -lt "$grace" ] && kill -0 "$agent" 2>/dev/null; do
    sleep 1
    waited=$((waited + 1))
  done
  kill_tree "$agent"
) </dev/null >/dev/null 2>&1 &
watcher=$!
exec 3<&-
wait "$agent"
code=$?
kill_tree "$watcher"
[ -n "$claim" ] && : >"$claim"
exit "$code"
