# Inode 8 when the superblock names no journal there: it must be empty. With has_journal
# cleared and s_journal_inum zeroed over a journal (the superblock's checksum resealed),
# e2fsck -fn names the inode ("Journal inode is not in use, but contains data", exit 4)
# and so does check -n -f; check -y -f zeroes it as e2fsck -y does, and the blocks it
# held are freed by the next check: both tools then find the image clean.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

mkimg base.img 16M -b 1024
run e2fsck -fn base.img
expect_rc 0 "oracle: e2fsck -fn on a fresh filesystem"
cp base.img t.img
python3 -c '
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(1024 + 92); compat = struct.unpack("<I", f.read(4))[0]
    f.seek(1024 + 92); f.write(struct.pack("<I", compat & ~4))
    f.seek(1024 + 224); f.write(struct.pack("<I", 0))' t.img
"$E4R_FSMETA" reseal t.img sb >/dev/null 2>&1 || fail "fsmeta reseal sb"
run e2fsck -fn t.img
expect_rc 4 "oracle: e2fsck -fn on inode 8 left holding a journal"
expect_out "Journal inode is not in use, but contains data" "oracle names the journal inode"
run "$E4R" check -n -f t.img
expect_rc 4 "check -n -f on inode 8 left holding a journal"
expect_out "journal inode 8 is not in use \(the superblock names no journal there\), but contains data" \
	"check -n -f names the journal inode"
expect_no_out "reserved inode 8 has a bad mode" "inode 8's mode is not judged (e2fsck judges none there)"
repaired_image t.img "inode 8 left holding a journal"
run debugfs -R "stat <8>" t.img
expect_out "Links: 0 .*Blockcount: 0" "inode 8 is empty after check -y -f"
