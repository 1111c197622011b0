# check's questions on a terminal (a pseudo-terminal from python3's pty module) take one key,
# without Enter, in raw mode, and the terminal is canonical with echo again after every run.
# The oracle is e2fsck -fn on the result and the damage this test made with debugfs (two
# inodes with wrong link counts): y then a repairs both; n then a leaves exactly the first;
# n and n leave both; ^D answers no to that question and every later one (asked once); SIGINT
# at the second question cancels (exit 32) with neither repaired.
. "$E4R_TESTS_SRCDIR/lib.sh"

mkimg base.img 8M -b 1024
printf '%s\n' "write /dev/null f1" "write /dev/null f2" "sif f1 links_count 5" "sif f2 links_count 7" |
	debugfs -w -f - base.img >/dev/null 2>&1 || fail "debugfs damage"
i1=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
i2=$(debugfs -R "stat f2" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
run e2fsck -fn base.img
expect_rc 4 "oracle: the damage is seen"
expect_out "Inode $i1 ref count is 5, should be 1" "oracle: f1's count"
expect_out "Inode $i2 ref count is 7, should be 1" "oracle: f2's count"

ask() { # KEYS OUT
	cp base.img "$2.img"
	python3 "$E4R_TESTS_TOOLS/pty_keys.py" --stdout "(yes/no/all)? " "$1" "$2" "$E4R" check -f "$2.img" ||
		fail "$2: the pty driver failed"
	note "$2: exit $(cat "$2.rc"), terminal: $(cat "$2.tty")"
}
left() { # IMAGE: the inodes e2fsck -fn still finds with a wrong count
	e2fsck -fn "$1" 2>&1 | sed -n 's/^Inode \([0-9]*\) ref count is .*/\1/p' | tr '\n' ' '
}

ask ya yes-all
[ "$(cat yes-all.tty)" = "raw raw restored" ] || fail "y, a: terminal $(cat yes-all.tty)"
[ "$(cat yes-all.rc)" = 1 ] || fail "y, a: exit $(cat yes-all.rc)"
run e2fsck -fn yes-all.img
expect_rc 0 "oracle: y then a repairs everything"
grep -q "? yes$" yes-all.txt && grep -q "? all$" yes-all.txt || fail "the answers are not echoed as words: $(cat yes-all.txt)"

ask na no-all
[ "$(left no-all.img)" = "$i1 " ] || fail "n, a: left $(left no-all.img), expected $i1"
ask nn no-no
[ "$(left no-no.img)" = "$i1 $i2 " ] || fail "n, n: left $(left no-no.img)"
[ "$(cat no-no.tty)" = "raw raw restored" ] || fail "n, n: terminal $(cat no-no.tty)"

ask D eof
[ "$(cat eof.tty)" = "raw restored" ] || fail "^D: asked again after the end of input: $(cat eof.tty)"
[ "$(left eof.img)" = "$i1 $i2 " ] || fail "^D: left $(left eof.img)"

ask nI cancelled
[ "$(cat cancelled.rc)" = 32 ] || fail "SIGINT: exit $(cat cancelled.rc)"
[ "$(cat cancelled.tty)" = "raw raw restored" ] || fail "SIGINT: terminal $(cat cancelled.tty)"
[ "$(left cancelled.img)" = "$i1 $i2 " ] || fail "SIGINT: left $(left cancelled.img)"
exit 0
