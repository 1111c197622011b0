# An extent tree node that lies in an inode table (its index entry points into unused
# inode slots) and holds a leaf outside the filesystem: e2fsck -fy copies the node to a
# block of its own (pass 1D) and drops the bad leaf there. check -y -f must do the same in
# one repair: copy first (a trim before the copy would write into the inode table, which
# the write guard refuses, or drop data e2fsck keeps), then trim the copy; e2fsck -fn is
# clean after it, and the file keeps the extents e2fsck keeps.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

mkimg x.img 16M -b 1024 -I 256 -N 2048
printf '%s\n' "write /dev/null frag" > cmds
for i in $(seq 0 2 14); do echo "fallocate frag $((i * 10)) $((i * 10))"; done >> cmds
debugfs -w -f cmds x.img >/dev/null 2>&1 || fail "debugfs fallocate"
node=$(debugfs -R "ex frag" x.img 2>/dev/null | awk '$1 == "0/" && $2 == "1" { print $8; exit }')
[ -n "$node" ] || skip "could not build an extent tree of depth 1 with debugfs"
last=$(dumpe2fs x.img 2>/dev/null | sed -n 's/^ *Inode table at [0-9]*-\([0-9]*\) .*/\1/p' | head -n 1)
[ -n "$last" ] || fail "no inode table in dumpe2fs"
# the last block of group 0's table holds unused inode slots: the node goes there
spot=$((last - 5))
python3 - "$node" "$spot" <<'EOF' || fail "moving the node"
import struct, sys
node, spot = int(sys.argv[1]), int(sys.argv[2])
with open("x.img", "r+b") as f:
    f.seek(node * 1024)
    b = bytearray(f.read(1024))
    entries = struct.unpack_from("<H", b, 2)[0]
    # the last leaf starts outside the filesystem (its checksum goes stale too)
    struct.pack_into("<I", b, 12 + (entries - 1) * 12 + 8, 99999999)
    f.seek(spot * 1024)
    f.write(b)
EOF
debugfs -w -R "sif frag block[4] $spot" x.img >/dev/null 2>&1 || fail "debugfs sif"
run debugfs -R "ex frag" x.img
expect_out " $spot " "the index entry points into the inode table"

judged_and_repaired x.img "an extent node in an inode table" \
	"block $spot conflicts with critical metadata" \
	"claims 1 block\(s\) of filesystem metadata, the first block $spot" 4
[ "$(printf '%s\n' "$YOUT" | grep -c 'checking again')" -le 1 ] || fail "the repair took more than one round"
ours=$(debugfs -R "ex frag" x.img 2>/dev/null | awk 'NR > 1 && $1 == "1/" { print $5, $8 }')
theirs=$(debugfs -R "ex frag" e2.img 2>/dev/null | awk 'NR > 1 && $1 == "1/" { print $5, $8 }')
note "leaves after check -y: $(echo $ours); after e2fsck -fy: $(echo $theirs)"
[ -n "$ours" ] && [ "$ours" = "$theirs" ] || fail "check -y keeps other extents than e2fsck -fy"
run debugfs -R "ex frag" x.img
expect_no_out " $spot " "the node was copied out of the inode table"
exit 0
