# Out of memory in check -y on damaged images: tests/unit/nomem_cmds fails each allocation of
# the whole process (libext2fs's and the C library's too), once alone and once with every
# later one. An allocation failure is an operational error, never damage, and the repair
# round it strikes is dropped whole (doc/DESIGN.md, "Journaled repair rounds"). Each run
# either exits as the uninjected run did, with its stdout and its image (but the times), or
# exits 8 leaving the image as before the round: the input but for the superblock's error
# marks, or what the rounds before committed (the distinct states are counted), from which
# an uninjected check ends in what e2fsck -fn finds clean. Every allocation of the repair
# rounds is tried, 15 of the others (check_lib.sh, nomem_repairs). --json runs are
# validated by the runner (an exit of 8 or more says why). dup.img's clone goes through
# ext2fs_extent_replace, which drops the error of its inode write (libext2fs 1.47.0): the
# repair reads the inode back and counts its blocks, so that failure ends the round too.
. "$E4R_TESTS_SRCDIR/check_lib.sh"

nomem_damaged_images
nomem_repairs "dir.img -y 1 --json" "cnt.img -y 1" "dup.img -y 1"
note "$NOMEM_RUNS runs"
