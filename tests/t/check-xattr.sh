# Extended attribute blocks: entry bounds and overlaps, names without an index,
# values past the block, entry hashes, the reference count against the inodes that
# point at the block, and (with metadata_csum) the block checksum. Each damage is
# made on purpose, seen by e2fsck -fn, and named by check -n -f (block and inode).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# poke IMAGE OFFSET HEX: write bytes in place.
poke() {
	python3 -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); f.write(bytes.fromhex(sys.argv[3]))' "$@"
}

# 128-byte inodes: the attributes go to a block. No metadata_csum: damage to entries
# is judged by the entries alone.
mkimg base.img 16M -I 128 -O ^metadata_csum
populate base.img
printf '%s\n' "ea_set f1 user.foo barbazvalue" "ea_set f1 user.second 0123456789" |
	debugfs -w -f - base.img >/dev/null 2>&1 || fail "debugfs ea_set"
both_clean base.img "the image with an xattr block"
i1=$(inode_of base.img f1); i2=$(inode_of base.img f2)
xb=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
bs=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Block size: *//p')
[ -n "$xb" ] && [ "$xb" -gt 0 ] || fail "f1 has no xattr block"
B=$((xb * bs))
# The two entries, as debugfs wrote them: the first at offset 32 (header), then the next.
e1=32
e2=$((e1 + (16 + $(od -A n -t u1 -j $((B + e1)) -N 1 base.img) + 3) / 4 * 4))

# ecase OFFSET HEX E2FSCK-REGEX OUR-REGEX: poke the xattr block, both tools must see it.
ecase() {
	cp base.img t.img
	poke t.img $((B + $1)) "$2"
	run e2fsck -fn t.img
	expect_rc 4 "oracle: e2fsck -fn after writing $2 at xattr offset $1"
	expect_out "$3" "oracle names the damage at offset $1"
	run "$E4R" check -n -f t.img
	expect_rc 4 "check -n -f after writing $2 at xattr offset $1"
	expect_out "$4" "check names the damage at offset $1"
}
vend=$(printf '%04x' $((bs - 4)))	# a value offset 4 bytes before the end: 11 bytes do not fit
ecase $((e1 + 2)) "${vend#??}${vend%??}" "Extended attribute block $xb is corrupt \(invalid value\)" \
	"extended attribute block $xb \(inode $i1\): the value of the entry at offset $e1 ends past the block"
ecase $((e1 + 1)) 00 "Extended attribute block $xb is corrupt \(invalid name\)" \
	"extended attribute block $xb \(inode $i1\): the entry at offset $e1 has no name index"
ecase $((e1 + 12)) 00000000 "Extended attribute in inode $i1 has a hash \(0\) which is invalid" \
	"extended attribute block $xb \(inode $i1\): the entry at offset $e1 has a wrong hash"
# The second entry's value moved onto the first's.
v1=$(od -A n -t x1 -j $((B + e1 + 2)) -N 2 base.img | tr -d ' ')
ecase $((e2 + 2)) "$v1" "Extended attribute block $xb is corrupt \(allocation collision\)" \
	"extended attribute block $xb \(inode $i1\): the entry at offset $e2 or its value leaves the block or overlaps"
# Reference counts: the header says 5; then f2 points at the block too (the header says 1).
ecase 4 05000000 "Extended attribute block $xb has reference count 5, should be 1" \
	"extended attribute block $xb has reference count 5, should be 1 \(first used by inode $i1\)"
damage "sif f2 file_acl $xb" "Extended attribute block $xb has reference count 1, should be 2" \
	"extended attribute block $xb has reference count 1, should be 2 \(first used by inode $i1\)"

# Repairs, as e2fsck makes them: a block with a corrupt entry is detached from the
# inode (the next round mends the inode's block count and frees the block); a wrong
# reference count becomes the count of inodes found. Both tools find the result clean.
rcase() { # OFFSET HEX WHAT
	cp base.img t.img
	poke t.img $((B + $1)) "$2"
	repaired_image t.img "$3"
}
detached() {
	run debugfs -R "stat f1" t.img
	expect_out "File ACL: 0" "the corrupt xattr block is no longer f1's"
}
rcase $((e1 + 2)) "${vend#??}${vend%??}" "a value past the end of the xattr block"
detached
rcase $((e1 + 1)) 00 "an xattr entry without a name index"
detached
rcase $((e1 + 12)) 00000000 "an xattr entry with a wrong hash"
detached
rcase $((e2 + 2)) "$v1" "two xattr values on each other"
detached
rcase 4 05000000 "an xattr reference count too high"
run debugfs -R "stat f1" t.img
expect_out "File ACL: $xb" "f1 keeps its xattr block"
repaired_by "sif f2 file_acl $xb"
run debugfs -R "ea_list f2" t.img
expect_out "user.foo" "f2 shares f1's attributes after the repair"

# With metadata_csum: one bit of a value breaks the block's checksum.
mkimg csum.img 16M -I 128
populate csum.img
debugfs -w -R "ea_set f1 user.foo barbazvalue" csum.img >/dev/null 2>&1 || fail "debugfs ea_set"
cb=$(debugfs -R "stat f1" csum.img 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
ci=$(debugfs -R "stat f1" csum.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
cbs=$(dumpe2fs -h csum.img 2>/dev/null | sed -n 's/^Block size: *//p')
flip csum.img $((cb * cbs + cbs - 2)) 1
run e2fsck -fn csum.img
expect_rc 4 "oracle: e2fsck -fn on a bad xattr block checksum"
expect_out "[Ee]xtended attribute block $cb" "oracle names the block"
run "$E4R" check -n -f csum.img
expect_rc 4 "check -n -f on a bad xattr block checksum"
expect_out "inode $ci has a bad extended attribute block $cb" "check names the inode and block"
# A reference count repaired under metadata_csum: the block is written with a valid checksum.
mkimg csum.img 16M -I 128
populate csum.img
debugfs -w -R "ea_set f1 user.foo barbazvalue" csum.img >/dev/null 2>&1 || fail "debugfs ea_set"
cb=$(debugfs -R "stat f1" csum.img 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
cp csum.img base.img
repaired_by "sif f2 file_acl $cb"
printf '%s\n' "$YOUT" | grep -q "extended attribute block $cb has reference count 1, should be 2" ||
	fail "check -y -f did not name the reference count under metadata_csum"

# In-inode attributes (256-byte inodes, no 64bit: i_file_acl_high must be zero), and the
# inode fields around them. The inode's offset in the image, from debugfs's imap.
mkimg base.img 16M -I 256 -O ^metadata_csum,^64bit
populate base.img
debugfs -w -R "ea_set f1 user.foo barbazvalue" base.img >/dev/null 2>&1 || fail "debugfs ea_set"
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the image with an in-inode xattr"
i1=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
bs=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Block size: *//p')
loc=$(debugfs -R "imap f1" base.img 2>/dev/null | sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
I=$(( ${loc% *} * bs + ${loc#* } ))
xisz=$(od -A n -t u2 -j $((I + 128)) -N 2 base.img | tr -d ' ')
X=$((I + 128 + xisz + 4))	# the first in-inode entry, after the 4-byte magic
[ "$(od -A n -t x4 -j $((X - 4)) -N 4 base.img | tr -d ' ')" = ea020000 ] || fail "f1 has no in-inode xattr"

# icase OFFSET HEX E2FSCK-REGEX OUR-REGEX: poke f1's inode at OFFSET, both tools see it.
icase() {
	cp base.img t.img
	poke t.img $(($I + $1)) "$2"
	run e2fsck -fn t.img
	expect_rc 4 "oracle: e2fsck -fn after writing $2 at inode offset $1"
	expect_out "$3" "oracle names the damage at inode offset $1"
	run "$E4R" check -n -f t.img
	expect_rc 4 "check -n -f after writing $2 at inode offset $1"
	expect_out "$4" "check names the damage at inode offset $1"
	repaired_image t.img "$2 at inode offset $1"
}
E=$((X - I))	# the entry's offset in the inode
icase 128 2100 "Inode $i1 has a extra size \(33\) which is invalid" \
	"inode $i1 i_extra_isize is 33, should be 36"
icase $((E + 12)) 01000000 "Extended attribute in inode $i1 has a hash \(1\) which is invalid" \
	"inode $i1: the in-inode extended attribute at offset 4 has a wrong hash"
icase $((E + 8)) ff000000 "Extended attribute in inode $i1 has a value size \(255\) which is invalid" \
	"inode $i1: the in-inode extended attribute at offset 4, its name or its value leaves the inode"
icase $((E + 4)) ffffff7f "Inode $i1 has illegal extended attribute value inode" \
	"inode $i1: the in-inode extended attribute at offset 4 names an invalid value inode"
run debugfs -R "ea_list f1" t.img
expect_no_out "user.foo" "the in-inode attributes are cleared, as e2fsck does"
icase 112 05000000 "i_faddr for inode $i1 \(/f1\) is 5, should be zero" "inode $i1 i_faddr is 5, should be zero"
icase 118 0100 "i_file_acl_hi for inode $i1 \(/f1\) is 1, should be zero" \
	"inode $i1 i_file_acl_high is 1, should be zero"

# EA inodes (ea_inode) and inline data (inline_data). debugfs's ea_set leaves the owner's
# i_blocks without its EA inode's blocks: e2fsck -fy settles that before the base is used.
mkimg base.img 16M -I 256 -O ea_inode,inline_data
head -c 6000 /dev/zero | tr '\0' v > big
printf 'hi\n' > small
printf '%s\n' "write small s1" "write small f1" "ea_set -f big f1 user.big" |
	debugfs -w -f - base.img >/dev/null 2>&1 || fail "debugfs ea_inode image"
e2fsck -fy base.img >/dev/null 2>&1
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on the image with an EA inode"
run "$E4R" check -n -f base.img
expect_rc 0 "check -n -f on the image with an EA inode (its blocks charged to the owner)"
ea=
for i in $(seq 12 20); do
	fl=$(debugfs -R "stat <$i>" base.img 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
	[ -n "$fl" ] && [ $((fl & 0x200000)) -ne 0 ] && ea=$i && break
done
[ -n "$ea" ] || fail "no EA inode in the image"
repaired_by "sif <$ea> ctime 5"
printf '%s\n' "$YOUT" | grep -Eq "extended attribute inode $ea reference count is [0-9]+, should be 1" ||
	fail "check -y -f did not name the EA inode's reference count"
repaired_by "sif <$ea> links_count 2"
repaired_by "sif <$ea> flags 0x80000"
printf '%s\n' "$YOUT" | grep -q "inode $ea holds an extended attribute value but lacks the EA inode flag" ||
	fail "check -y -f did not name the missing EA inode flag"
# Inline data without its system.data attribute: truncated to nothing, as e2fsck does.
repaired_by "ea_rm s1 system.data"
printf '%s\n' "$YOUT" | grep -q "has inline data but no readable system.data" ||
	fail "check -y -f did not name the missing system.data"
# A pre-1970 time in the old encoding (negative seconds, epoch bits 3): e2fsck -n only warns.
repaired_by "sif f1 ctime 0x80000000;sif f1 ctime_extra 3" 0
printf '%s\n' "$YOUT" | grep -q "likely pre-1970" || fail "check -y -f did not name the old time encoding"
# Entry hashes in every form e2fsck accepts: a name hashed with signed chars (older
# kernels and libext2fs) or unsigned, for a value in place and for one in an EA inode
# (there the value's part is the EA inode's hash). A name byte above 127 tells the two
# apart. e2fsck -fn must call each clean; check -n -f must agree, and check -y must keep
# the attribute (it once cleared an EA-inode entry hashed the signed way).
XH="$E4R_TESTS_SRCDIR/tools/xattrhash.py"
head -c 3000 /dev/zero | tr '\0' w > big
for isz in 256 128; do
	mkimg h.img 16M -I $isz -O ea_inode
	printf 'write small f1\nea_set -f big f1 user.caf\351\nea_set f1 user.n\351e smallvalue\n' |
		debugfs -w -f - h.img >/dev/null 2>&1 || fail "debugfs ea_set with high-bit names"
	e2fsck -fy h.img >/dev/null 2>&1
	both_clean h.img "the image with high-bit xattr names ($isz-byte inodes)"
	hi=$(inode_of h.img f1)
	where=ibody; [ $isz = 128 ] && where=block
	for k in 0 1; do
		for form in signed unsigned; do
			cp h.img t.img
			python3 "$XH" t.img "$hi" $where $k $form "$E4R_FSMETA" >/dev/null ||
				fail "xattrhash $where $k $form"
			both_clean t.img "entry $k of the $where hashed the $form way"
			run "$E4R" check -y -f t.img
			expect_rc 0 "check -y -f on entry $k of the $where hashed the $form way"
			run debugfs -R "ea_list f1" t.img
			expect_out "user\.caf" "the EA-inode attribute kept by check -y ($where $k $form)"
			expect_out "smallvalue" "the in-place attribute kept by check -y ($where $k $form)"
		done
	done
done
exit 0
