# write: a freed directory block is revoked, so replaying the older transaction that logged it
# cannot overwrite the file data that reuses the block (40 blocks: no locality
# group preallocation, and mballoc's best fit among the group's first chunks is the freed one,
# as the kernel picks it). debugfs's logdump shows the revoke record;
# after e2fsck replays the journal the file's contents are intact (doc/DESIGN.md's content rule).
# A directory block emptied, freed with its directory and taken by a new directory holds
# the new directory's entries only, whether the writer checkpoints or crashes and e2fsck
# replays: the revoked older copy (with the removed entry) is never written home.
. "$E4R_TESTS_SRCDIR/lib.sh"

PY=$(python3 -c 'import sys; print(sys.executable)') || skip "needs python3"
cat > s.txt <<'SCRIPT'
mkdir /d
commit
rmdir /d
commit
create /f 40000
commit
crash
SCRIPT
for csum in v3 v2 v1 none; do
	mkimg a.img 8M -b 1024 -O ^flex_bg
	run "$E4R" write --script=s.txt --csum=$csum a.img; expect_rc 0 "write ($csum)"
	run debugfs -R "logdump -a" a.img
	LOG=$OUT
	run e2fsck -E journal_only -y a.img
	expect_out "recovering journal" "$csum: replay"
	run e2fsck -fn a.img; expect_rc 0 "$csum: clean after replay"
	first=$(debugfs -R "blocks /f" a.img 2>/dev/null | awk '{ print $1 }')
	[ -n "$first" ] || fail "no blocks for /f"
	OUT=$LOG
	expect_out "Revoke FS block $first\$" "$csum: the block /d had and /f reuses ($first) is revoked"
	debugfs -R "dump /f f.out" a.img > /dev/null 2>&1
	"$PY" -S - "$E4R_TESTS_SRCDIR" <<'CHECK' || fail "$csum: /f's contents are not the data written"
import sys; sys.path.insert(0, sys.argv[1]); import writer
sys.exit(open('f.out', 'rb').read() != writer.content("/f", 0, 40000))
CHECK
done

printf '%s\n' "mkdir /a" "mkdir /a/in" commit "rmdir /a/in" "rmdir /a" commit "mkdir /b" commit > r.txt
for bs in 1024 4096; do
	for end in checkpoint crash; do
		cp r.txt r-$end.txt
		[ $end = crash ] && echo crash >> r-$end.txt
		mkimg r.img 16M -b $bs
		run "$E4R" write --script=r-$end.txt r.img; expect_rc 0 "write, reused directory block ($bs, $end)"
		e2fsck -E journal_only -y r.img >/dev/null 2>&1
		run e2fsck -fn r.img; expect_rc 0 "$bs, $end: e2fsck -fn clean with a reused directory block"
		names=$(debugfs -R "ls -l /b" r.img 2>/dev/null | awk 'NF { printf "%s ", $NF }')
		[ "$names" = ". .. " ] || fail "$bs, $end: /b lists '$names', expected only . and .."
	done
done
exit 0
