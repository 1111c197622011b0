# The bash completion (completion/e4recover.bash) offers what the program's --help lists:
# the subcommands, each subcommand's options, the replay policies, write's checksum kinds
# and bugs. Each case runs the completion function as bash would, with COMP_WORDS and
# COMP_CWORD set, and compares its candidates with --help.
. "$E4R_TESTS_SRCDIR/lib.sh"

comp=$E4R_TESTS_SRCDIR/../completion/e4recover.bash
[ -f "$comp" ] || fail "no $comp"
command -v bash > /dev/null || skip "needs bash"

# complete WORD...: the candidates for the last word of "e4recover WORD...", one a line, sorted.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=(e4recover "$@"); COMP_CWORD=$#; _e4recover
		printf "%s\n" "${COMPREPLY[@]}"' complete "$comp" "$@" | grep -v '^$' | sort
}

same() { # WHAT EXPECTED-FILE GOT-FILE
	diff "$2" "$3" > diff.txt || { cat diff.txt; fail "$1: --help (<) and the completion (>) differ"; }
}

run "$E4R" --help
printf '%s\n' "$OUT" | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' |
	sort > subs.txt
[ "$(wc -l < subs.txt)" -ge 5 ] || fail "--help lists only $(wc -l < subs.txt) subcommands"
complete_words "" | grep -v '^-' > got.txt
same "subcommands" subs.txt got.txt
complete_words "" | grep '^-' > got.txt
printf '%s\n' --help --version > want.txt
same "top-level options" want.txt got.txt
complete_words "di" > got.txt
[ "$(cat got.txt)" = diagnose ] || fail "'di' completes to: $(cat got.txt)"

for sub in $(cat subs.txt); do
	help_options "$sub" > want.txt
	complete_words "$sub" "-" | sed 's/=$//' > got.txt
	same "$sub's options" want.txt got.txt
done
complete_words check --po > got.txt
[ "$(cat got.txt)" = "--policy=" ] || fail "'check --po' completes to: $(cat got.txt)"

for sub in check replay; do
	help_values $sub --policy | sort > want.txt
	complete_words $sub --policy = "" > got.txt;  same "$sub --policy=" want.txt got.txt
	complete_words $sub --policy "" > got.txt;    same "$sub --policy P" want.txt got.txt
	complete_words $sub --policy=s > got.txt
	grep '^s' want.txt > want-s.txt;              same "$sub --policy=s" want-s.txt got.txt
done
help_values write --csum | sort > want.txt
complete_words write --csum = "" > got.txt;       same "write --csum=" want.txt got.txt
help_values write --reproduce | sort > want.txt
complete_words write --reproduce = "" > got.txt;  same "write --reproduce=" want.txt got.txt

# IMAGE and file-valued options complete file names.
touch disk.img
[ "$(complete_words check -n dis)" = disk.img ] || fail "IMAGE does not complete to a file"
[ "$(complete_words replay --undo = dis)" = disk.img ] || fail "--undo= does not complete to a file"

# Paths complete into directories: a directory is a candidate, and the completion is
# registered with -o filenames, so that bash adds its '/' and goes on inside it (and
# quotes a name with a space).
mkdir -p "zz dir/inner" && touch "zz dir/inner/x.img"
[ "$(complete_words check -n "zz")" = "zz dir" ] || fail "a directory is not a candidate for IMAGE"
[ "$(complete_words check -n "zz dir/inner/")" = "zz dir/inner/x.img" ] ||
	fail "IMAGE does not complete inside a directory"
bash -c '. "$1"; complete -p e4recover' x "$comp" | grep -q -- '-o filenames' ||
	fail "the completion is not registered with -o filenames (directories would not complete into)"

# With bash-completion loaded, the function is what completes e4recover.
bc=/usr/share/bash-completion/bash_completion
if [ -f "$bc" ]; then
	bash -c '. "$1" 2>/dev/null; . "$2"; complete -p e4recover' x "$bc" "$comp" | grep -q -- '-F _e4recover' ||
		fail "complete -p e4recover does not name _e4recover"
fi
exit 0
