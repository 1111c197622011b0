# Robustness: random damage (bit flips, random bytes, zeroed blocks, huge values)
# to the journals and metadata of images built here, then every subcommand
# (tests/robust.py): no signal, no hang, a documented exit code, an exit 8 that
# names the image, no byte changed by read-only runs, nothing written past the
# filesystem's end, and e2undo undoes a replay. A fixed seed keeps CI
# reproducible; E4R_ROBUST_SEED and E4R_ROBUST_TRIALS explore further.
. "$E4R_TESTS_SRCDIR/lib.sh"

written() { # NAME SIZE BLOCKSIZE MKE2FS-ARGS WRITE-ARGS...
	local name=$1 size=$2 bs=$3 mk=$4
	shift 4
	mkimg "$name.img" "$size" -b "$bs" $mk
	run "$E4R" write "$@" "$name.img"
	expect_rc 0 "write $name"
	dumpe2fs -h "$name.img" 2>/dev/null | grep -q needs_recovery || fail "$name: journal needs no recovery"
	IMAGES="$IMAGES $name.img"
}
IMAGES=
written v3-1k 3M 1024 "-O metadata_csum" --ops=40 --seed=3 --csum=v3 --crash-after=200
written v2-4k 8M 4096 "-O metadata_csum,64bit" --ops=60 --seed=5 --csum=v2 --crash-after=150
written v1-async 3M 1024 "-O ^metadata_csum" --ops=40 --seed=7 --csum=v1 --async-commit --crash-after=150
written nocsum 3M 1024 "-O ^metadata_csum,^flex_bg" --ops=50 --seed=11 --csum=none --crash-after=180
written leak3 4M 1024 "-O metadata_csum" --ops=30 --seed=9 --csum=v3 --reproduce=ialloc-3.4
written ext3 4M 1024 "-O ^extent,^flex_bg,^64bit,^metadata_csum,^huge_file,^dir_nlink,^extra_isize -I 128" --ops=40 --seed=3 --csum=none --crash-after=100
# Fast commits the kernel wrote, where loop mounts work (mkfc skips otherwise).
. "$E4R_TESTS_SRCDIR/mkfc.sh"
if (mkfc fc.img) >mkfc.log 2>&1; then IMAGES="$IMAGES fc.img"; else note "no fast-commit image: $(tail -n 1 mkfc.log)"; fi

seed=${E4R_ROBUST_SEED:-20261204}
trials=${E4R_ROBUST_TRIALS:-42}
note "seed $seed, $trials trials over:$IMAGES"
python3 "$E4R_TESTS_SRCDIR/robust.py" "$E4R" "$seed" "$trials" $IMAGES || fail "robustness (seed $seed)"
exit 0
