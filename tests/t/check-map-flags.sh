# The inline data and extents flags together on inodes the differential tester's
# bases cannot give them with one damage (their files are all extent-mapped): a
# block-mapped file, whose flags e2fsck clears (PR_1_CLEAR_EXTENT_INLINE_DATA_FLAGS),
# and one whose i_block is neither inline data, an extent tree nor a block map, which
# e2fsck clears (PR_1_CLEAR_EXTENT_INLINE_DATA_INODE). e2fsck -fn names each damage,
# check -n -f must too; after check -y -f e2fsck -fn finds nothing, and the file is
# kept (with its data) or gone as after e2fsck -fy.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# inline_data without extents: debugfs writes block-mapped files next to the feature.
mkimg base.img 8M -b 1024 -O ^extent,^64bit,inline_data
seeded_bytes f 100000 > f.data
debugfs -w -R "write f.data f" base.img >/dev/null 2>&1 || fail "debugfs write"
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the base"
run "$E4R" check -n -f base.img
expect_rc 0 "check -n -f on the base"
ino=$(debugfs -R "stat f" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
[ -n "$ino" ] || fail "no inode for f"

# judged_both NAME E2FSCK-REGEX OUR-REGEX: NAME.img, damaged, is seen by both tools
# (exit 4, each naming the damage), then repaired by both: e2fsck -fy on a copy,
# NAME.e2fsck.img; check -y -f on NAME.img, after which e2fsck -fn is clean.
judged_both() {
	run e2fsck -fn "$1.img"
	expect_rc 4 "oracle: e2fsck -fn on $1"
	expect_out "$2" "oracle names the damage of $1"
	run "$E4R" check -n -f "$1.img"
	expect_rc 4 "check -n -f on $1"
	expect_out "$3" "check names the damage of $1"
	cp "$1.img" "$1.e2fsck.img"
	e2fsck -fy "$1.e2fsck.img" >/dev/null 2>&1
	[ $? -lt 4 ] || fail "oracle: e2fsck -fy on $1 left errors"
	run "$E4R" check -y -f "$1.img"
	expect_rc 1 "check -y -f repairs $1"
	run e2fsck -fn "$1.img"
	expect_rc 0 "oracle: e2fsck -fn clean after check -y -f on $1"
}

# mapcase NAME DEBUGFS-COMMAND E2FSCK-REGEX OUR-REGEX: both flags on f (and the
# command), seen by both tools, then repaired by both.
mapcase() {
	cp base.img "$1.img"
	printf '%s\n' "sif f flags 0x10080000" "$2" | debugfs -w -f - "$1.img" >/dev/null 2>&1 ||
		fail "debugfs on $1"
	judged_both "$1" "$3" "$4"
}

# i_block is the block map debugfs wrote: both flags go, the file keeps its blocks.
mapcase blockmap "" "Inode $ino seems to have block map but inline data and extent flags set" \
	"inode $ino has the inline data and extents flags, but i_block holds a block map"
for img in blockmap.img blockmap.e2fsck.img; do
	debugfs -R "dump f $img.out" "$img" >/dev/null 2>&1
	cmp -s f.data "$img.out" || fail "f's data after the repair of $img differ from what was written"
done

# A block number past the end of the filesystem in i_block: the inode goes, and its name.
mapcase junk "sif f block[2] 0xffffff00" \
	"Inode $ino has inline data and extent flags set but i_block contains junk" \
	"inode $ino has the inline data and extents flags, and i_block holds neither"
for img in junk.img junk.e2fsck.img; do
	debugfs -R "stat f" "$img" 2>&1 | grep -q "File not found" || fail "f is still named after the repair of $img"
done
# A superblock that lost the extent or inline_data feature over files that prove it
# (a sound extent header; the system.data attribute): e2fsck sets the feature again
# and keeps every file (PR_1_EXTENT_FEATURE, PR_1_INLINE_DATA_FEATURE); check -y -f
# must too, with their data, where it once cleared each such inode.
# feature_lost NAME FEATURE E2FSCK-REGEX OUR-REGEX: base.img without FEATURE.
feature_lost() {
	cp base.img "$1.img"
	debugfs -w -R "feature -$2" "$1.img" >/dev/null 2>&1 || fail "debugfs feature -$2"
	judged_both "$1" "$3" "$4"
	run "$E4R" check -n -f "$1.img"
	expect_rc 0 "check -n -f after check -y -f without $2"
	dumpe2fs -h "$1.img" 2>/dev/null | grep -q "^Filesystem features:.* $2" ||
		fail "check -y -f did not set $2 again"
}

# kept_as_in_base IMAGE FILE...: each FILE reads back from IMAGE as from base.img
# (debugfs dumps an inline file's whole inline area, so the base is the reference).
kept_as_in_base() {
	local img=$1 f
	shift
	for f in "$@"; do
		rm -f out ref
		debugfs -R "dump $f ref" base.img >/dev/null 2>&1
		debugfs -R "dump $f out" "$img" >/dev/null 2>&1
		[ -s ref ] && cmp -s out ref || fail "$f is not kept by the repair of $img"
	done
}

# extents on a filesystem without 64bit (with it, the 64bit rule sets extents first)
mkimg base.img 8M -b 1024 -O ^64bit,^inline_data
seeded_bytes g 200000 > g.data
printf '%s\n' "write f.data f" "write g.data g" "mkdir d" "write f.data d/f" |
	debugfs -w -f - base.img >/dev/null 2>&1 || fail "debugfs write on the extent base"
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the extent base"
feature_lost extent extent "superblock is missing EXTENTS feature" \
	"in extent format, but the superblock lacks the extent feature"
kept_as_in_base extent.img f g d/f
kept_as_in_base extent.e2fsck.img f g d/f

# inline data: small files and a directory kept in their inodes
mkimg base.img 8M -b 1024 -O inline_data
printf 'tiny\n' > t.data
printf '%s\n' "write t.data t" "mkdir d" "write t.data d/t" |
	debugfs -w -f - base.img >/dev/null 2>&1 || fail "debugfs write on the inline base"
debugfs -R "stat t" base.img 2>/dev/null | grep -q "Size of inline data" ||
	skip "debugfs did not keep t inline"
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the inline base"
feature_lost inline inline_data "superblock is missing INLINE_DATA feature" \
	"has inline data and its system.data attribute, but the superblock lacks the inline_data feature"
kept_as_in_base inline.img t d/t
kept_as_in_base inline.e2fsck.img t d/t
exit 0
