# write: a hashed directory grown past what its root can index gets a second index level
# as the kernel's does (the root's entries move to an index node, indirect_levels 1; a
# full node splits in two, the root indexing the new one). For the same script on the
# same image, the kernel's directory (loop mount, commit=3600 so only the script's
# commits end transactions) and ours have the same index (debugfs htree: every index
# entry of the root and of each node, every leaf with its names, inode numbers and
# hashes in their order; checksums aside, since the kernel's random i_generation seeds
# them), the same indirect_levels, the same blocks, the same inode number on every path,
# and e2fsck -fn finds ours clean. Long names make few per leaf, so a few hundred reach
# the second level.
. "$E4R_TESTS_SRCDIR/lib.sh"

need_kernel_mount

script() { # COUNT NAMELEN: /h grown to COUNT names NAMELEN long, a few removed and added again
	"$PY" -S - "$1" "$2" <<'PY'
import sys
count, width = int(sys.argv[1]), int(sys.argv[2])
name = lambda i: ('n%d-' % i).ljust(width, 'x')
out = ['mkdir /h']
out += ['create /h/%s 0' % name(i) for i in range(count)]
out.append('commit')
out += ['unlink /h/%s' % name(i) for i in range(0, count, 7)]
out += ['create /h/%s 0' % name(count + i) for i in range(count // 10)]
out.append('mkdir /h/sub')
out.append('commit')
print('\n'.join(out))
PY
}

while read -r count width bs opts; do
	case $count in ''|'#'*) continue ;; esac
	mkimg_opts ours.img 16M "$bs" "$opts"
	cp ours.img kernel.img
	script "$count" "$width" > s.txt
	what="$count names of $width bytes, $bs-byte blocks${opts:+, $opts}"
	run "$E4R" write --script=s.txt ours.img; expect_rc 0 "write ($what)"
	run e2fsck -fn ours.img; expect_rc 0 "e2fsck -fn ($what)"
	with_sync_lock -s "$PY" -S "$W" kernel kernel.img s.txt loop,commit=3600 ||
		fail "the kernel could not run the script ($what)"
	for img in ours kernel; do
		debugfs -R "htree /h" $img.img 2>/dev/null | grep -vi checksum > $img.htree
		debugfs -R "stat /h" $img.img 2>/dev/null | sed -n '/^EXTENTS:/,$p' > $img.blocks
		# every path with its inode number
		debugfs -R "ls -p /h" $img.img 2>/dev/null | awk -F/ 'NF > 6 { print $6, $2 }' | sort > $img.inos
	done
	levels=$(sed -n 's/^[[:space:]]*Indirect levels: //p' kernel.htree)
	[ "$levels" = 1 ] || fail "the kernel's /h has indirect_levels '$levels', not 1: the case does not reach a second level ($what)"
	[ "$(sed -n 's/^[[:space:]]*Indirect levels: //p' ours.htree)" = "$levels" ] ||
		fail "our /h has another indirect_levels than the kernel's $levels ($what)"
	# the root's count: index nodes under it; more than one when a full node was split
	nodes=$(sed -n 's/^Number of entries (count): //p' kernel.htree | head -1)
	[ "$nodes" -ge 2 ] || fail "the kernel's root indexes $nodes node(s): no node was split ($what)"
	diff ours.htree kernel.htree > htree.diff || { head -20 htree.diff; fail "the htree differs from the kernel's ($what)"; }
	diff ours.blocks kernel.blocks || fail "the directory's blocks differ from the kernel's ($what)"
	[ "$(wc -l < kernel.inos)" -gt $((count / 2)) ] || fail "the kernel's /h lists too few names ($what)"
	diff ours.inos kernel.inos > /dev/null || fail "inode numbers differ from the kernel's ($what)"
	note "$what: the same two-level htree as the kernel's ($nodes index nodes), blocks and inode numbers"
done <<'CASES'
# names  name length  block  mke2fs options (hash=ALG: the default directory hash)
700      200          1024
700      200          1024   -O ^metadata_csum hash=tea
1700     250          2048   -O ^flex_bg
CASES
exit 0
