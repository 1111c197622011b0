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
exit 0
