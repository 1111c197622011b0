# Sourced by fast-commit image tests (after lib.sh): mkfc IMAGE builds an ext4
# image with fast commits that the kernel left unrecovered. Creates, appends
# and a truncate, each fsynced, become fast commits; a link and an unlink
# before them force full commits. Then a shutdown without log flush
# ($E4R_SHUTDOWN, tests/tools/shutdown.c). Skips when loop mounts are refused.
# Leaves ./mnt (an empty mount point) behind.
# Both hold the sync lock (lib.sh: with_sync_lock) from mount to shutdown.
mkfc() { with_sync_lock -s mkfc_locked "$@"; }
mkfc_locked() { # IMAGE
	local img=$1
	[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
	[ -x "$E4R_SHUTDOWN" ] || fail "no $E4R_SHUTDOWN: build it with make check"
	rm -f "$img"
	truncate -s 32M "$img"
	mke2fs -q -F -t ext4 -O metadata_csum,fast_commit -U 11111111-2222-3333-4444-555555555555 \
		-E lazy_itable_init=0,lazy_journal_init=0 "$img" || fail "mke2fs fast_commit"
	mkdir -p mnt
	# commit=60: no periodic full commit overtakes the fast commits.
	mount -o loop,commit=60 "$img" mnt 2>mount.err || skip "loop mount refused: $(cat mount.err)"
	python3 - <<'PY' || { umount mnt; fail "workload"; }
import ctypes, os
def data(i, n):
    return bytes((i * 7 + k) % 251 for k in range(n))
def create(i):
    with open("mnt/f%d" % i, "wb") as f:
        f.write(data(i, 100 + i * 3000))
        f.flush(); os.fsync(f.fileno())
# syncfs, not sync: a global sync would commit the journals of other tests' mounts too
fd = os.open("mnt", os.O_RDONLY); ctypes.CDLL(None).syncfs(fd); os.close(fd)
for i in range(4):
    create(i)
d = os.open("mnt", os.O_RDONLY)
os.link("mnt/f1", "mnt/h1"); os.fsync(d)
os.unlink("mnt/f2"); os.fsync(d)
for i in range(4, 12):
    create(i)
with open("mnt/f5", "r+b") as f:
    f.truncate(10); os.fsync(f.fileno())
with open("mnt/f4", "ab") as f:
    f.write(data(99, 20000)); f.flush(); os.fsync(f.fileno())
PY
	"$E4R_SHUTDOWN" mnt || { umount mnt; fail "shutdown"; }
	umount mnt || fail "umount"
}

# mkfc_seeded IMAGE SEED: the same, with tests/fcwork.py's seeded workload
# (mkdirs, creates, appends, truncates, unlinks, links, symlinks, renames,
# each fsynced). The seed also picks the block size and the image size.
mkfc_seeded() { with_sync_lock -s mkfc_seeded_locked "$@"; }
mkfc_seeded_locked() { # IMAGE SEED
	local img=$1 seed=$2 bs size
	[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
	[ -x "$E4R_SHUTDOWN" ] || fail "no $E4R_SHUTDOWN: build it with make check"
	bs=$((seed % 2 ? 1024 : 4096)); size=$((seed % 3 ? 64 : 32))
	rm -f "$img"
	truncate -s ${size}M "$img"
	mke2fs -q -F -t ext4 -b $bs -O metadata_csum,fast_commit \
		-U 11111111-2222-3333-4444-$(printf %012x "$seed") \
		-E lazy_itable_init=0,lazy_journal_init=0,hash_seed=00000000-0000-0000-0000-$(printf %012x "$seed") \
		"$img" || fail "mke2fs fast_commit"
	mkdir -p mnt
	mount -o loop,commit=60 "$img" mnt 2>mount.err || skip "loop mount refused: $(cat mount.err)"
	python3 "$E4R_TESTS_SRCDIR/fcwork.py" mnt "$seed" || { umount mnt; fail "workload seed $seed"; }
	"$E4R_SHUTDOWN" mnt || { umount mnt; fail "shutdown"; }
	umount mnt || fail "umount"
}
