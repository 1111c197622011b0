# Multi-mount protection (feature mmp): a fresh filesystem is clean for both tools and
# neither check -n nor check -y starts MMP (libext2fs's MMP start sleeps twice the
# update interval; e2fsck -y does); a bad MMP block number, a bad magic and
# a bad checksum are named as e2fsck -fn names them (it stops after them: exit 12,
# here 4); -y writes a fresh MMP block, after which both tools find the image clean.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

mkimg base.img 16M -b 4096 -O mmp
dumpe2fs -h base.img 2>/dev/null | grep -q "features:.* mmp" || skip "mke2fs made no MMP block"
mb=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^MMP block number: *//p')
[ -n "$mb" ] || fail "dumpe2fs names no MMP block"
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on a fresh mmp filesystem"
run timeout 60 "$E4R" check -n -f base.img
expect_rc 0 "check -n -f on a fresh mmp filesystem (mmp is a feature libext2fs supports)"
cp base.img y.img
run timeout 60 "$E4R" check -y -f y.img
expect_rc 0 "check -y -f on a fresh mmp filesystem"
# libext2fs's MMP start stamps its sequence, time and node into the block before its
# wait: an untouched block shows that check -y never started (nor waited on) MMP
bs=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Block size: *//p')
dd if=base.img of=mmp.before bs="$bs" skip="$mb" count=1 2>/dev/null
dd if=y.img of=mmp.after bs="$bs" skip="$mb" count=1 2>/dev/null
cmp -s mmp.before mmp.after ||
	fail "check -y -f started MMP on a fresh filesystem (the MMP block changed)"

# mmp_check ORACLE-RE OURS-RE: t.img is damaged; e2fsck -fn (exit 12) and check -n -f
# (exit 4) name it; check -y -f repairs it when REPAIR is 1.
mmp_check() {
	local e2re=$1 ourre=$2 repair=$3 sum
	run e2fsck -fn t.img
	expect_rc 12 "oracle: e2fsck -fn stops on the MMP damage"
	expect_out "$e2re" "oracle names the MMP damage"
	sum=$(sha t.img)
	run timeout 60 "$E4R" check -n -f t.img
	expect_rc 4 "check -n -f on the MMP damage"
	expect_out "$ourre" "check -n -f names the MMP damage"
	[ "$(sha t.img)" = "$sum" ] || fail "check -n -f wrote to the image"
	[ "$repair" = 1 ] || return 0
	repaired_image t.img "the MMP damage" 12
}

# The MMP block's magic (its first byte), then a bit its checksum covers (metadata_csum).
cp base.img t.img
flip t.img $((mb * 4096)) 0
mmp_check "Superblock has invalid MMP magic" "the MMP block $mb has an invalid magic number" 1
cp base.img t.img
flip t.img $((mb * 4096 + 8)) 3
mmp_check "Superblock MMP block checksum does not match" \
	"the MMP block $mb checksum does not match" 1
# A block number past the end (s_mmp_block, superblock offset 360; its checksum resealed).
# e2fsck -y zeroes the number and then cannot open the filesystem: not repaired here.
cp base.img t.img
python3 -c '
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(1024 + 360); f.write(struct.pack("<Q", 1 << 40))' t.img
"$E4R_FSMETA" reseal t.img sb >/dev/null 2>&1 || fail "fsmeta reseal sb"
mmp_check "Superblock has invalid MMP block" "the superblock's MMP block 1099511627776 is outside" 0
