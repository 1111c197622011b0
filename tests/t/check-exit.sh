# check's exit code against e2fsck's on the same input, one rule at a time: 0 nothing
# wrong (also after a journal replay alone), 1 everything fixed (also when a backup
# superblock's descriptors were used), 4 errors left (-n; -p stopping for a person;
# some answers no after a fix: 4 replaces 1), 8 when the image cannot be opened.
# 12 where e2fsck cannot proceed: a journal it cannot load, left as it is (-n).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# same_rc WANT IMAGE "E2FSCK OPTIONS" "CHECK OPTIONS" WHAT: each on its own copy of IMAGE;
# e2fsck must exit WANT (the rule holds for the oracle) and check the same.
same_rc() {
	local want=$1 img=$2 eopts=$3 oopts=$4 what=$5
	cp "$img" e.img
	cp "$img" o.img
	run e2fsck $eopts e.img
	expect_rc "$want" "oracle: e2fsck $eopts on $what"
	run "$E4R" check $oopts o.img
	expect_rc "$want" "check $oopts on $what exits like e2fsck $eopts"
}

base_image
blk=$(debugfs -R "bmap f1 0" base.img 2>/dev/null)
[ -n "$blk" ] && [ "$blk" -gt 0 ] || fail "no block for f1"

for m in -n -y -p; do
	same_rc 0 base.img "-f $m" "-f $m" "a clean image"
done

# Fixable damage: found by -n, fixed by -y and by -p (all of it is safe).
cp base.img fixable.img
printf '%s\n' "freeb $blk" "sif f1 links_count 3" | debugfs -w -f - fixable.img >/dev/null 2>&1 ||
	fail "debugfs damage"
same_rc 4 fixable.img "-fn" "-n -f" "fixable damage"
same_rc 1 fixable.img "-fy" "-y -f" "fixable damage"
same_rc 1 fixable.img "-fp" "-p -f" "fixable damage"

# -p and a directory cut from the tree: a person must decide.
cp base.img unsafe.img
printf '%s\n' "unlink dir/sub" | debugfs -w -f - unsafe.img >/dev/null 2>&1 || fail "debugfs unlink"
same_rc 4 unsafe.img "-fp" "-p -f" "a disconnected directory"

# A journal replay alone is no fix: 0.
mkimg j.img 16M -O metadata_csum
seeded_bytes d 8192 > d
jwrite j.img "jo -c" "jw -b 5000,5001 $PWD/d" "jc"
same_rc 0 j.img "-y" "-y --policy=stop" "a journal that needs recovery"

# A journal that cannot be loaded, needing recovery or not: e2fsck -n cannot proceed
# (exit 12) and says why; -p and -y clear it and make it anew (1), and the result is
# clean for e2fsck. The journal superblock zeroed, the journal's inode cleared, and
# s_journal_inum naming a reserved inode, a file, or one past the inodes.
jsb=$(debugfs -R "bmap <8> 0" j.img 2>/dev/null)
[ -n "$jsb" ] || fail "no journal superblock in j.img"
mkimg jc.img 16M -O metadata_csum
for img in j.img jc.img; do
	for d in zero clri 1 7 11 99999; do
		cp "$img" bj.img
		case $d in
		zero) dd if=/dev/zero of=bj.img bs=1024 seek="$jsb" count=1 conv=notrunc 2>/dev/null ;;
		clri) debugfs -w -R "clri <8>" bj.img >/dev/null 2>&1 ;;
		*) debugfs -w -R "ssv journal_inum $d" bj.img >/dev/null 2>&1 ;;
		esac
		same_rc 12 bj.img "-fn" "-n -f" "an invalid journal ($d, $img)"
		expect_out "cannot proceed with the check .*the journal \(inode [0-9]+\) is invalid" \
			"check -n says why it cannot proceed ($d, $img)"
		# and --json says which finding stops it: the reason for its exit 12
		cp bj.img jj.img
		"$E4R" check -n -f --json jj.img >jj.json 2>/dev/null
		[ $? = 12 ] || fail "check -n -f --json: not exit 12 ($d, $img)"
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["halted"] == "journal_bad", d["halted"]' \
			jj.json || fail "--json does not name journal_bad as what halts ($d, $img)"
		same_rc 1 bj.img "-fp" "-p -f" "an invalid journal ($d, $img)"
		run e2fsck -fn o.img
		expect_rc 0 "oracle: e2fsck -fn after check -p on an invalid journal ($d, $img)"
		"$E4R" check -n -f --json o.img >jj.json 2>/dev/null
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["halted"] is None, d["halted"]' \
			jj.json || fail "--json names a halting finding on the mended journal ($d, $img)"
	done
done

# Primary descriptors pointing outside the filesystem: the backup's are used and
# written back, which counts as a fix.
cp base.img bd.img
printf '%s\n' "set_bg 0 inode_table 99999" "set_bg 0 checksum calc" |
	debugfs -w -f - bd.img >/dev/null 2>&1 || fail "debugfs set_bg"
same_rc 1 bd.img "-fy" "-y -f" "bad primary group descriptors"
expect_out "using the backup superblock at block 8193" "check says which backup it used"
run e2fsck -fn o.img
expect_rc 0 "oracle: e2fsck -fn after check -y -f from the backup"
# Every fix holds: the check after the repairing round finds nothing (the inode
# bitmap padding, fixed on disk, was once reported again in each of six rounds).
cp base.img bd2.img
printf '%s\n' "set_bg 0 inode_table 99999" "set_bg 0 checksum calc" |
	debugfs -w -f - bd2.img >/dev/null 2>&1 || fail "debugfs set_bg"
"$E4R" check -y -f --json bd2.img > bd2.json 2>/dev/null
run python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
late = [(f["problem"], f["round"]) for f in d["findings"] if f["round"] > 0]
print("rounds", d["rounds"], "found after the first round:", late)
sys.exit(1 if late or d["rounds"] > 2 else 0)' bd2.json
expect_rc 0 "no problem found again after its repair"
run e2fsck -fn bd2.img
expect_rc 0 "oracle: e2fsck -fn after check -y -f (json run)"

same_rc 8 /dev/null "-fn" "-n -f" "an image that is not ext2/3/4"

# On a terminal: yes to the first question, no to the rest. Something was fixed and
# errors are left: 4, not 5, and both say both things.
if command -v script >/dev/null 2>&1; then
	for who in e2fsck check; do
		cp fixable.img tty.img
		if [ $who = e2fsck ]; then cmd="e2fsck -f tty.img"; keys='ynnnnnnnnn'
		else cmd="$E4R check -f tty.img"; keys='y\nn\nn\nn\nn\nn\nn\nn\nn\nn\n'; fi
		printf "$keys" | script -qec "$cmd; echo \"exit=\$?\"" /dev/null > tty.out 2>&1
		cat tty.out
		grep -q "exit=4" tty.out || fail "$who: yes then no on a terminal does not exit 4"
		grep -q "FILE SYSTEM WAS MODIFIED" tty.out || fail "$who: the fix is not reported"
		grep -q "still has errors" tty.out || fail "$who: the errors left are not reported"
	done
else
	note "no script(1): the answers on a terminal are not compared"
fi
exit 0
