# write --crash-after=N at every N, journal v1 with async commit (the commit block may land
# before the blocks it covers) and torn writes (the first lost write lands in part): see
# write-crash.sh, which this runs with another configuration.
E4R_CRASH_CONFIGS='v1async-torn|4096|-O ^metadata_csum,^64bit|--csum=v1 --async-commit --torn=700'
. "$E4R_TESTS_SRCDIR/t/write-crash.sh"
