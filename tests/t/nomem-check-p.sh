# Out of memory in check -p on damaged images, as nomem-check-y.sh does for -y: each run exits
# as the uninjected run did (its stdout, its image) or 8, a round whole or dropped, never a
# finding made of the failure. cnt.img's wrong counts are mended by a preen (exit 1, every
# allocation of its rounds tried); dir.img and dup.img stop it (exit 4: an entry to a cleared
# inode, a shared block), and their runs must leave the image unchanged or exit 4 as well.
# --json runs are validated by the runner (an exit of 8 or more says why).
. "$E4R_TESTS_SRCDIR/check_lib.sh"

nomem_damaged_images
nomem_repairs "cnt.img -p 1 --json" "dir.img -p 4" "dup.img -p 4"
note "$NOMEM_RUNS runs"
