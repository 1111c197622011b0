# The command line: --help, --version, usage errors exit 16 (doc/DESIGN.md).
. "$E4R_TESTS_SRCDIR/lib.sh"

run "$E4R" --help;            expect_rc 0 "--help";   expect_out '^Usage: e4recover SUBCOMMAND' "--help shows usage"
for sub in check logdump replay diagnose write; do
	expect_out "^  $sub " "--help lists $sub"
done
for sub in check logdump replay diagnose write; do
	run "$E4R" $sub --help;   expect_rc 0 "$sub --help"; expect_out "e4recover $sub" "$sub --help names the subcommand"
	run "$E4R" $sub --no-such-option x.img; expect_rc 16 "$sub with an unknown option"
	expect_out "no-such-option" "the bad option is named"
	run "$E4R" $sub;          expect_rc 16 "$sub without IMAGE"; expect_out "no IMAGE given" "missing IMAGE is explained"
	run "$E4R" $sub a.img b.img; expect_rc 16 "$sub with two images"
done
run "$E4R" --version;         expect_rc 0 "--version"; expect_out '^e4recover [0-9]+\.[0-9]+' "--version prints a version"
run "$E4R";                   expect_rc 16 "no subcommand"
run "$E4R" frobnicate x.img;  expect_rc 16 "unknown subcommand"; expect_out "'frobnicate' is not a subcommand" "unknown subcommand is named"
# An option's value given twice would silently replace the first: refused. A flag given
# twice means the same (e2fsck -n -n checks read-only), and is taken.
for args in "check --policy=stop --policy=all" "check -C 3 -C 4" "logdump --block=1 --block=2" \
	    "replay --policy=auto --policy=none" "diagnose --journal=a --journal=b" \
	    "write --seed=1 --seed=2"; do
	run "$E4R" $args x.img; expect_rc 16 "$args"
	expect_out "given more than once" "$args: says which option came twice"
done
# Options that contradict each other: an undo file for a run that writes nothing.
run "$E4R" check -n --undo=u.undo x.img; expect_rc 16 "check -n --undo"
[ ! -e u.undo ] || fail "check -n --undo made an undo file"
run "$E4R" replay --dry-run --undo=u.undo x.img; expect_rc 16 "replay --dry-run --undo"
[ ! -e u.undo ] || fail "replay --dry-run --undo made an undo file"
exit 0
