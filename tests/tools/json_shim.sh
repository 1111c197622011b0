#!/bin/bash
# Stands in front of e4recover for the test suite (tests/runner.sh points $E4R here): a run
# with --json has its stdout kept, with its arguments and exit code, in $E4R_JSON_SPOOL, for
# the runner to validate against doc/schema/ once the test ends (tests/tools/json_validate.py);
# the caller gets the same stdout, stderr and exit code. Any other run is e4recover itself.
real=${E4R_JSON_REAL:?E4R_JSON_REAL names the e4recover binary}
json=0
for a in "$@"; do
	case $a in
	--) break ;;
	--json) json=1 ;;
	-h | --help) json=0; break ;; # help is text, whatever else is asked
	esac
done
[ "$json" = 1 ] && [ -d "${E4R_JSON_SPOOL:-}" ] || exec "$real" "$@"
base=$(mktemp "$E4R_JSON_SPOOL/run.XXXXXX") || exec "$real" "$@"
printf '%s\n' "$@" >"$base.args"
# In the background so that a signal to us reaches it too (a test's timeout); stdin given
# explicitly, since a background command's default stdin is /dev/null.
"$real" "$@" <&0 >"$base.out" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
wait "$child"
rc=$?
while kill -0 "$child" 2>/dev/null; do
	wait "$child"
	rc=$?
done
echo "$rc" >"$base.rc"
cat "$base.out"
# Killed by a signal: die by the same one, so the caller sees what e4recover did.
if [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; then
	trap - TERM INT HUP
	kill -s $((rc - 128)) $$
fi
exit "$rc"
