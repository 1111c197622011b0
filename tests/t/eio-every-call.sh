# An I/O error (EIO) at any read or write of the image, for every subcommand: no crash,
# the documented exit code for an operational error (doc/e4recover.8.in: 8, and 12 for
# check when errors were found before the check was cut short), a message naming the
# image and the block, and no write to the image after the error. The faults come from
# tests/unit/e4r_faulty (e4recover over tests/unit/fault_io), which fails the K-th read
# or write call once; every K up to the number of calls an unfaulted run makes is tried.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

faulty=$E4R_TOP_BUILDDIR/tests/unit/e4r_faulty
[ -x "$faulty" ] || fail "no $faulty: build with make check"

scratch=.
if [ -d /dev/shm ] && [ -w /dev/shm ] && s=$(mktemp -d /dev/shm/e4r-eio.XXXXXX 2>/dev/null); then
	scratch=$s
	trap 'rm -rf "$scratch"' EXIT
fi

# A damaged populated image for check; a journal needing recovery, with a block whose
# checksum fails (something to diagnose), for logdump, replay and diagnose; a fresh
# image for write.
# (small, with few inodes: check -y makes ~1 read call per inode table block)
mkimg damaged.img 2M -O metadata_csum -N 64
populate damaged.img
blk=$(debugfs -R "bmap f1 0" damaged.img 2>/dev/null)
printf '%s\n' "unlink dir/sub" "freeb $blk" "sif f2 links_count 7" "ln <40> dangling" |
	debugfs -w -f - damaged.img >/dev/null 2>&1 || fail "debugfs damage"
seeded_bytes data 8192 > data
mkimg journal.img 8M -O metadata_csum
jwrite journal.img "jo -c" "jw -b 100,101 $PWD/data" "jw -b 300 -r 101 $PWD/data" "jc"
flip journal.img $(( $(jblock_offset journal.img 3) + 10 )) 2
mkimg fresh.img 8M


summary=
# eio_each SOURCE ALLOWED-RCS ARGS...: every read, then every write, of `e4recover ARGS img`
# (img a fresh copy of SOURCE each time) fails once with EIO.
eio_each() {
	local src=$1 allowed=$2 img=$scratch/img rep=$scratch/report reads writes k mode n rc tried=0 args what
	shift 2
	args="$*"
	cp "$src" "$img"
	E4R_FAULT_TARGET=$img E4R_FAULT_REPORT=$rep "$faulty" $args "$img" >/dev/null 2>&1
	reads=$(sed -n 's/^reads \([0-9]*\) .*/\1/p' "$rep") writes=$(sed -n 's/.* writes \([0-9]*\) .*/\1/p' "$rep")
	[ "${reads:-0}" -gt 0 ] || fail "$args: no read call counted"
	for mode in READ WRITE; do
		[ $mode = READ ] && n=$reads || n=$writes
		k=1
		while [ "$k" -le "$n" ]; do
			cp "$src" "$img"
			env "E4R_FAULT_$mode=$k" E4R_FAULT_TARGET="$img" E4R_FAULT_REPORT="$rep" \
				"$faulty" $args "$img" >"$scratch/out" 2>"$scratch/err" </dev/null
			rc=$?
			k=$((k + 1)) tried=$((tried + 1))
			set -- $(cat "$rep")	# reads R writes W eio D block B after A
			[ "$6" = 1 ] || { note "$args: $mode call $((k - 1)) of $n not made this time"; continue; }
			what="$args, EIO at $(echo $mode | tr A-Z a-z) call $((k - 1)) of $n (block $8)"
			[ "$rc" -lt 128 ] || fail "$what: killed by signal $((rc - 128))"
			grep -q "Sanitizer" "$scratch/err" && fail "$what: $(cat "$scratch/err")"
			case " $allowed " in
			*" $rc "*) ;;
			*) fail "$what: exit $rc, not one of $allowed: $(cat "$scratch/err")";;
			esac
			grep -Eq "$img: .*\(([^()]* )?(reading|writing) (block|byte) $8\)" "$scratch/err" ||
				fail "$what: the message names no image and block: $(cat "$scratch/err" "$scratch/out" | tail -n 3)"
			[ "${10}" = 0 ] || fail "$what: ${10} writes after the error"
		done
	done
	summary="$summary; $args: $reads reads, $writes writes, $tried tried"
}

eio_each damaged.img "8 12" check -n -f
eio_each damaged.img "8 12" check -y -f
eio_each journal.img "8" logdump
eio_each journal.img "8" replay --dry-run
eio_each journal.img "8" replay
eio_each journal.img "8" replay --policy=skip-block
eio_each journal.img "8" diagnose
eio_each fresh.img "8" write --ops=4 --seed=1
note "calls tried${summary#;}"
exit 0
