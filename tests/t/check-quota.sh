# Quota usage: check -n -f reads the user, group and project quota files and
# compares each id's usage with what the inodes use, like e2fsck -fn. Quota files
# written by e2fsck -fy and by the kernel read as clean; an inode moved to another
# owner without its quota (debugfs sif), a record's usage rewritten in place, and a
# tree reference past the file's end are named (type, id, quota inode) and exit 4, and
# so is a version e2fsck does not know (rewritten by -y); a magic e2fsck does not
# recognize is a warning (e2fsck -n passes it).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

# poke FMT IMG OFFSET VALUE: write VALUE packed as FMT (struct's "<I", "<Q") at byte OFFSET.
poke() {
	python3 -c '
import struct, sys
with open(sys.argv[2], "r+b") as f:
    f.seek(int(sys.argv[3])); f.write(struct.pack(sys.argv[1], int(sys.argv[4])))' "$@"
}

rm -f base.img
mke2fs -q -F -t ext4 -I 256 -O quota,project -U "$FIXED_UUID" \
	-E "quotatype=usrquota:grpquota:prjquota,hash_seed=$FIXED_HASH_SEED" \
	base.img 16M >/dev/null 2>&1 || skip "mke2fs cannot make quota images here"
populate base.img
# debugfs does not charge quota: e2fsck -fy writes the quota files the inodes call for.
e2fsck -fy base.img >/dev/null 2>&1
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn after e2fsck -fy wrote the quota files"
run "$E4R" check -n -f base.img
expect_rc 0 "check -n -f on quota files written by e2fsck"
expect_no_out "quota" "no quota finding on a clean image"

i1=$(debugfs -R "stat f1" base.img 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
[ -n "$i1" ] || fail "could not read the base image"

# A new owner for f1: user 0 loses an inode, user 4242 has one but no record at all.
damage "sif f1 uid 4242" "Missing quota entry ID 4242" \
	"user quota id 4242 has no record in the quota file \(inode 3\)"
expect_out "user quota id 0: the quota file \(inode 3\) records [0-9]+ inodes in use, counted" \
	"user 0's inode count"
damage "sif f1 gid 77" "Missing quota entry ID 77" \
	"group quota id 77 has no record in the quota file \(inode 4\)"
prj=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Project quota inode: *//p')
[ -n "$prj" ] || fail "no project quota inode"
damage "sif f1 projid 9" "Missing quota entry ID 9" \
	"project quota id 9 has no record in the quota file \(inode $prj\)"

# Rewrite one record in place: user 0's bytes in use, in the quota file's data block.
debugfs -R "dump <3> usr.q" base.img >/dev/null 2>&1 || fail "dump the user quota file"
bs=$(dumpe2fs -h base.img 2>/dev/null | sed -n 's/^Block size: *//p')
# the record of id 0: the first non-empty 72-byte slot after a data block's 16-byte header
off=$(python3 - usr.q <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
for blk in range(5, len(d) // 1024):
    b = d[blk * 1024:(blk + 1) * 1024]
    for o in range(16, 1024 - 71, 72):
        e = b[o:o + 72]
        if any(e) and struct.unpack_from("<I", e)[0] == 0:
            print(blk * 1024 + o + 48); sys.exit(0)
EOF
)
[ -n "$off" ] || fail "no record for user 0 in the user quota file"
phys=$(debugfs -R "bmap <3> $((off / bs))" base.img 2>/dev/null)
cp base.img r.img
poke "<Q" r.img $((phys * bs + off % bs)) 123456789
run e2fsck -fn r.img
expect_rc 4 "oracle: e2fsck -fn on a rewritten quota record"
expect_out "Usage inconsistent for ID 0:actual \([0-9]+, [0-9]+\) != expected \(123456789," \
	"oracle reads the rewritten record"
run "$E4R" check -n -f r.img
expect_rc 4 "check -n -f on a rewritten quota record"
expect_out "user quota id 0: the quota file \(inode 3\) records 123456789 bytes in use, counted [0-9]+" \
	"check names the id, the file and both values"

# The root of the user quota tree refers past the file's end: e2fsck -n rejects the file.
root=$(debugfs -R "bmap <3> $((1024 / bs))" base.img 2>/dev/null)
cp base.img t.img
poke "<I" t.img $((root * bs + 1024 % bs)) 65535
run e2fsck -fn t.img
expect_rc 4 "oracle: e2fsck -fn on a quota tree reference past the end"
expect_out "Update quota info for quota type 0" "oracle names the user quota"
run "$E4R" check -n -f t.img
expect_rc 4 "check -n -f on a quota tree reference past the end"
expect_out "the user quota file \(inode 3\) cannot be read: the quota file's tree refers to a block past" \
	"check names the quota file and why"

# A header without the user quota magic: e2fsck -n skips the file (exit 0); check warns.
phys0=$(debugfs -R "bmap <3> 0" base.img 2>/dev/null)
cp base.img h.img
flip h.img $((phys0 * bs)) 0
run e2fsck -fn h.img
expect_rc 0 "oracle: e2fsck -fn passes a quota file it does not recognize"
run "$E4R" check -n -f h.img
expect_rc 0 "check -n -f agrees on the verdict"
expect_out "the user quota file \(inode 3\) has a wrong magic number" "check still says so"

# The right magic under a version e2fsck does not know (2): e2fsck -n cannot open the
# file and calls it damaged (it asks to update the quota); check says so (exit 4).
cp base.img v.img
poke "<I" v.img $((phys0 * bs + 4)) 2
run e2fsck -fn v.img
expect_rc 4 "oracle: e2fsck -fn on an unknown quota file version"
expect_out "Update quota info for quota type 0" "oracle names the user quota"
run "$E4R" check -n -f v.img
expect_rc 4 "check -n -f on an unknown quota file version"
expect_out "the user quota file \(inode 3\) has version 2, which is not known \(should be 1\)" \
	"check names the file and its version"

# Version 0 under the right magic: e2fsck reads the records in version 0's layout
# (48 bytes, 32-bit inode counts), which on this version 1 file gives other usage.
cp base.img v0.img
poke "<I" v0.img $((phys0 * bs + 4)) 0
run e2fsck -fn v0.img
expect_rc 4 "oracle: e2fsck -fn on version 0 over version 1 records"
expect_out "Usage inconsistent for ID 0" "oracle reads other usage for user 0"
run "$E4R" check -n -f v0.img
expect_rc 4 "check -n -f on version 0 over version 1 records"
expect_out "user quota id 0: the quota file \(inode 3\) records" "check reads the records as version 0's too"

# A real version 0 file: user quota's records rewritten in version 0's layout, with
# limits for id 0. e2fsck reads it clean, and so must check; a repair (a new owner
# for f1) writes version 1 and keeps id 0's limits, as e2fsck converts them.
nfsb=$(( ($(stat -c %s usr.q) + bs - 1) / bs ))
maps=""
for k in $(seq 0 $((nfsb - 1))); do maps="$maps $(debugfs -R "bmap <3> $k" base.img 2>/dev/null)"; done
cp base.img r0.img
python3 - r0.img usr.q "$bs" $maps <<'EOF2'
import struct, sys
img, q, bs, maps = sys.argv[1], open(sys.argv[2], "rb").read(), int(sys.argv[3]), sys.argv[4:]
d = bytearray(q)
d[4:8] = struct.pack("<I", 0)
for blk in range(5, len(d) // 1024):
    b = d[blk * 1024:(blk + 1) * 1024]
    recs = [b[o:o + 72] for o in range(16, 1024 - 71, 72)]
    if not any(any(r) for r in recs) or struct.unpack_from("<I", b, 8)[0] == 0:
        continue  # a tree block or a free one: no records
    out = bytearray(b[:16]) + bytearray(1024 - 16)
    for i, r in enumerate(recs):
        if not any(r):
            continue
        qid, _, ih, isf, ci, bh, bsf, cs, bt, it = struct.unpack("<IIQQQQQQQQ", r)
        if qid == 0:
            ih, bh = 40, 5000
        struct.pack_into("<IIIIIIQQQ", out, 16 + 48 * i, qid, ih, isf, ci, bh, bsf, cs, bt, it)
    d[blk * 1024:(blk + 1) * 1024] = out
with open(img, "r+b") as f:
    for k, p in enumerate(maps):
        f.seek(int(p) * bs)
        f.write(d[k * bs:(k + 1) * bs])
EOF2
run e2fsck -fn r0.img
expect_rc 0 "oracle: e2fsck -fn reads the version 0 file clean"
run "$E4R" check -n -f r0.img
expect_rc 0 "check -n -f reads the version 0 file clean"
cp base.img nolimits.img
cp r0.img base.img
repaired_by "sif f1 uid 4242"
run debugfs -R "get_quota user 0" t.img
expect_out "^ +0 +[0-9]+ +0 +5000 +[0-9]+ +0 +40" "id 0 keeps the version 0 file's limits"
cp nolimits.img base.img

# Repairs: check -y -f writes the quota file again with the usage it counted, as
# e2fsck does (limits kept). Both tools then find the image clean, and debugfs reads
# the new records.
repaired_by "sif f1 uid 4242"
run debugfs -R "get_quota user 4242" t.img
expect_out "^ +4242 +[1-9][0-9]* +0 +0 +1 +0 +0" "debugfs reads user 4242's new record: one inode"
repaired_by "sif f1 gid 77"
repaired_by "sif f1 projid 9"
# Ids whose paths part at every level of the tree.
repaired_by "sif f1 uid 66051;sif f2 uid 66052;sif dir/f3 gid 16777217"
run debugfs -R "get_quota user 66052" t.img
expect_out "^ +66052 +[1-9][0-9]* +0 +0 +1 +0 +0" "debugfs reads user 66052's record"
cp r.img t.img
repaired_image t.img "a rewritten quota record"
# Limits are kept, as e2fsck keeps them: id 0's block hard limit and inode soft limit,
# written into its record, survive the repair of f1 moved to another owner.
cp base.img l.img
for field in "$((off - 48 + 32)) 5000" "$((off - 48 + 16)) 40"; do
	set -- $field
	poke "<Q" l.img $(($(debugfs -R "bmap <3> $(($1 / bs))" base.img 2>/dev/null) * bs + $1 % bs)) "$2"
done
run debugfs -R "get_quota user 0" l.img
expect_out "^ +0 +[0-9]+ +0 +5000 +[0-9]+ +40 +0" "debugfs reads the limits written"
cp base.img nolimits.img
cp l.img base.img
repaired_by "sif f1 uid 4242"
run debugfs -R "get_quota user 0" t.img
expect_out "^ +0 +[0-9]+ +0 +5000 +[0-9]+ +40 +0" "id 0 keeps its limits after the repair"
cp nolimits.img base.img
# A quota inode number that cannot be one: the type is no longer tracked, as e2fsck clears it.
# A quota file that cannot be read (a tree reference past its end, an inode that is not
# a regular file): written again whole from the usage counted, as e2fsck does (e2fsck
# -n stops at the directory: exit 12).
cp base.img t.img
poke "<I" t.img $((root * bs + 1024 % bs)) 65535
repaired_image t.img "a quota tree reference past the end"
# An unknown version: written again from the usage counted, as e2fsck -fy does, and
# debugfs reads the new file.
cp v.img t.img
repaired_image t.img "an unknown quota file version"
run debugfs -R "get_quota user 0" t.img
expect_out "^ +0 +[1-9][0-9]* +0 +0 +[1-9][0-9]* +0 +0" "debugfs reads user 0's record in the rewritten file"
cp v0.img t.img
repaired_image t.img "version 0 over version 1 records"
# A magic we do not know is left as it is, as e2fsck -fy leaves it (it may be no
# quota file of ours): -y writes nothing there.
cp h.img t.img
e2fsck -fy t.img >/dev/null 2>&1
[ "$(sha t.img)" = "$(sha h.img)" ] || note "e2fsck -fy changed the image with an unknown quota header"
cp h.img t.img
run "$E4R" check -y -f t.img
expect_rc 0 "check -y -f on an unknown quota header: nothing to repair"
expect_out "the user quota file \(inode 3\) has a wrong magic number" "check -y -f still says so"
[ "$(sha t.img)" = "$(sha h.img)" ] || fail "check -y -f wrote to the image with an unknown quota header"
repaired_by "sif <4> mode 040755;sif f1 gid 4343" 12
run debugfs -R "get_quota group 4343" t.img
expect_out "^ +4343 +[1-9][0-9]* +0 +0 +1 +0 +0" "debugfs reads group 4343 in the rewritten file"
repaired_by "ssv prj_quota_inum 5"
repaired_by "ssv usr_quota_inum 5;clri <3>"
run dumpe2fs -h t.img
expect_no_out "User quota inode" "the superblock no longer names a user quota inode"

# An invalid quota inode number alone (a reserved inode, one past the count), on an
# image whose quota feature tracks users and groups only: e2fsck -n cannot open that
# type's file from the field and offers to update its quota (exit 4). Without the
# feature e2fsck -n names the field and exits 0 (a warning).
mv base.img full.img
mkimg base.img 16M -O quota
populate base.img
e2fsck -fy base.img >/dev/null 2>&1
for v in 1 7 99999; do
	damage "ssv prj_quota_inum $v" "Invalid project quota inode $v" \
		"the project quota inode $v is invalid .*cannot be read" 4
done
repaired_by "ssv prj_quota_inum 7"
mkimg base.img 16M -O ^quota
populate base.img
for v in 1 5 99999; do
	damage "ssv usr_quota_inum $v" "Invalid user quota inode $v" \
		"the user quota inode $v is invalid \(a reserved inode or out of range\)$" 0
done
mv full.img base.img

# Quota files the kernel wrote: files of three owners and a project.
mkdir mnt
cp base.img k.img
if mount -o loop,prjquota k.img mnt 2>/dev/null; then
	seq 1 50000 > mnt/a && chown 1001:2002 mnt/a &&
	mkdir mnt/p && seq 1 70000 > mnt/p/b && chown 1003 mnt/p/b &&
	{ chattr -p 31 mnt/p/b 2>/dev/null || true; }
	umount mnt || fail "umount"
	run e2fsck -fn k.img
	expect_rc 0 "oracle: e2fsck -fn on the kernel's quota files"
	run "$E4R" check -n -f k.img
	expect_rc 0 "check -n -f on the kernel's quota files"
else
	note "loop mount refused: the kernel's quota files are not tested"
fi
exit 0
