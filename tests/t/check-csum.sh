# check names checksum damage like e2fsck -fn: an inode checksum (error), an extent
# block checksum (error), a group descriptor checksum (e2fsck -n leaves the filesystem
# valid: exit 0, but says so).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

base_image
i1=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
[ -n "$i1" ] || fail "could not read the base image"

damage "sif f1 checksum 0x1234" "Inode $i1 passes checks, but checksum does not match inode" \
	"inode $i1 passes checks, but its checksum does not match"
damage "set_bg 0 checksum 0x1234" "Group descriptor 0 checksum is 0x1234, should be" \
	"group 0 descriptor checksum does not match \(stored 4660, computed" 0
# Group 1's descriptor no longer vouches for its uninit flags: its never-written inode
# bitmap block is read, and its padding bits are not set.
damage "set_bg 1 checksum 0x1234" "Padding at end of inode bitmap is not set" \
	"padding at end of an inode bitmap block is not set"
# uninit_bg beside metadata_csum: e2fsck -n says that one supersedes the other (exit 0).
damage "feature uninit_bg" "metadata_csum supersedes uninit_bg" \
	"sets both metadata_csum and uninit_bg; metadata_csum supersedes uninit_bg" 0
# -y and -p clear uninit_bg, as e2fsck -fy does: the same features after either, and
# nothing left for e2fsck -fy to change.
features() { dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Filesystem features: *//p'; }
for mode in -y -p; do
	cp t.img e2.img
	e2fsck -fy e2.img >/dev/null 2>&1
	[ $? = 1 ] || fail "oracle: e2fsck -fy does not clear uninit_bg beside metadata_csum"
	cp t.img mine.img
	run "$E4R" check $mode -f mine.img
	expect_rc 1 "check $mode -f clears uninit_bg beside metadata_csum"
	[ "$(features mine.img)" = "$(features e2.img)" ] ||
		fail "check $mode -f left features '$(features mine.img)', e2fsck -fy '$(features e2.img)'"
	run e2fsck -fy mine.img
	expect_rc 0 "oracle: e2fsck -fy finds nothing to change after check $mode -f"
done

# A file with an extent tree of depth 1: a flipped bit in its index block's checksum.
mkimg deep.img 16M
printf '%s\n' "write /dev/null frag" > cmds
for i in $(seq 0 2 14); do echo "fallocate frag $((i * 10)) $((i * 10))"; done >> cmds
debugfs -w -f cmds deep.img >/dev/null 2>&1 || fail "debugfs fallocate"
# "ex" prints the index entry first: " 0/ 1   1/  1     0 - 4294967295  NODE  0"
node=$(debugfs -R "ex frag" deep.img 2>/dev/null | awk '$1 == "0/" && $2 == "1" { print $8; exit }')
[ -n "$node" ] || skip "could not build an extent tree of depth 1 with debugfs"
ifr=$(debugfs -R "stat frag" deep.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
bs=$(dumpe2fs -h deep.img 2>/dev/null | sed -n 's/^Block size: *//p')
flip deep.img $((node * bs + bs - 1)) 3
run e2fsck -fn deep.img
expect_rc 4 "oracle: e2fsck -fn on a bad extent block checksum"
expect_out "Inode $ifr extent block passes checks, but checksum does not match extent" "oracle names the inode"
run "$E4R" check -n -f deep.img
expect_rc 4 "check -n -f on a bad extent block checksum"
expect_out "inode $ifr extent tree block $node checksum does not match" "check names the inode and block"
exit 0
