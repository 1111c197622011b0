# Journal recovery across damages and journal kinds: kernel crash images (v1, v1 async,
# v3, v3 async) whose journal is then damaged four ways (a flipped bit in a logged
# block; the 2012 leak, a bit set in a logged inode bitmap after its checksum was
# taken; a logged block zeroed; a commit block torn in its second half). On each,
# `check -y` must leave e2fsck -fn clean and keep at least as many intact files as
# e2fsck -fy and as `check -y --policy=stop` do. A file is intact when its inode number,
# mode, size and content (fsmeta reach) equal those of e2fsck -fy's recovery of the
# undamaged crash.
. "$E4R_TESTS_SRCDIR/lib.sh"

need_kernel_mount
[ -x "$E4R_SHUTDOWN" ] || fail "no $E4R_SHUTDOWN: build it with make check"
[ -x "$E4R_FSMETA" ] || fail "no $E4R_FSMETA: build it with make check"
T=$E4R_TESTS_TOOLS

# intact REF IMAGE: how many of REF's reachable files IMAGE holds unchanged.
intact() {
	"$E4R_FSMETA" reach "$2" 2>/dev/null | sort > "$2.reach"
	comm -12 "$1" "$2.reach" | wc -l
}

# journal_phys IMAGE JBLK: the image block holding journal block JBLK (debugfs's bmap).
journal_phys() {
	debugfs -R "bmap <8> $2" "$1" 2>/dev/null
}

# damage KIND IMAGE: apply one damage to the journal of IMAGE; 1 when it has no target.
damage() {
	local kind=$1 img=$2 info phys ib jblk
	case $kind in
	flip)
		"$PY" "$T/flipbit.py" "$img" "$E4R_TEST_SEED" data > flip.json || return 1 ;;
	zero|torn)
		# flipbit finds the block (debugfs as the oracle); flipping again undoes the bit
		cp "$img" probe.img
		info=$("$PY" "$T/flipbit.py" probe.img "$E4R_TEST_SEED" "$([ "$kind" = zero ] && echo data || echo commit)") || return 1
		phys=$(printf '%s' "$info" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["phys"])')
		bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
		if [ "$kind" = zero ]; then
			dd if=/dev/zero of="$img" bs="$bs" seek="$phys" count=1 conv=notrunc 2>/dev/null
		else
			seeded_bytes torn $((bs / 2)) | dd of="$img" bs=1 seek=$((phys * bs + bs / 2)) conv=notrunc 2>/dev/null
		fi ;;
	leak)
		# the inode bitmap of group 0 as logged last: one of its clear bits set
		ib=$(dumpe2fs "$img" 2>/dev/null | sed -n 's/.*Inode bitmap at \([0-9]*\).*/\1/p' | head -n 1)
		jblk=$(debugfs -R "logdump -b $ib" "$img" 2>/dev/null |
			sed -n "s/.*FS block $ib logged at sequence [0-9]*, journal block \([0-9]*\).*/\1/p" | tail -n 1)
		[ -n "$jblk" ] || return 1
		phys=$(journal_phys "$img" "$jblk")
		bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
		"$PY" - "$img" $((phys * bs)) <<'EOF' || return 1
import sys
img, off = sys.argv[1], int(sys.argv[2])
with open(img, "r+b") as f:
    f.seek(off)
    b = bytearray(f.read(64))
    for i in range(8, 64 * 8):          # past the reserved inodes: a clear bit becomes set
        if not b[i // 8] & (1 << (i % 8)):
            b[i // 8] |= 1 << (i % 8)
            f.seek(off)
            f.write(b)
            sys.exit(0)
sys.exit(1)
EOF
		;;
	esac
}

cases=0
for kind in v1 v1async v3 v3async; do
	with_sync_lock -x "$PY" "$T/mkcrash.py" crash-$kind.img "$E4R_TEST_SEED" $kind > /dev/null ||
		fail "mkcrash.py $kind"
	cp crash-$kind.img ref.img
	e2fsck -fy ref.img > /dev/null 2>&1
	"$E4R_FSMETA" reach ref.img | sort > ref.reach
	total=$(wc -l < ref.reach)
	for dmg in flip leak zero torn; do
		cp crash-$kind.img d.img
		if ! damage $dmg d.img; then
			note "$kind/$dmg: the journal holds no block to damage so"
			continue
		fi
		cmp -s d.img crash-$kind.img && { note "$kind/$dmg: the damage changed nothing"; continue; }
		cp d.img e2.img; cp d.img stop.img; cp d.img ours.img
		e2fsck -fy e2.img > e2.out 2>&1
		"$E4R" check -y --policy=stop stop.img > stop.out 2>&1
		run "$E4R" check -y ours.img
		[ "$RC" -lt 8 ] || fail "$kind/$dmg: check -y exit $RC"
		run e2fsck -fn ours.img
		expect_rc 0 "$kind/$dmg: oracle: e2fsck -fn after check -y"
		e2=$(intact ref.reach e2.img); st=$(intact ref.reach stop.img); us=$(intact ref.reach ours.img)
		note "$kind/$dmg: intact files of $total: check -y $us, e2fsck -fy $e2, --policy=stop $st"
		[ "$us" -ge "$e2" ] || fail "$kind/$dmg: check -y keeps $us intact files, e2fsck -fy $e2"
		[ "$us" -ge "$st" ] || fail "$kind/$dmg: check -y keeps $us intact files, --policy=stop $st"
		cases=$((cases + 1))
	done
done
[ "$cases" -ge 12 ] || fail "only $cases of the 16 damage cases could be made"
exit 0
