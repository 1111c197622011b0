# bash completion for e4recover: subcommands, each subcommand's options, and the values
# of --policy, --csum and --reproduce; file names elsewhere.
# tests/t/completion.sh checks these lists against each subcommand's --help.

_e4recover_options() {
	case $1 in
	check)    echo "-h --help -n -y -p -f -v --policy= --undo= --journal= --json -C" ;;
	logdump)  echo "-h --help --json --all --decode --diagnose --transaction= --block= --journal=" ;;
	replay)   echo "-h --help --policy= --answers= --dry-run --undo= --json -v --journal=" ;;
	diagnose) echo "-h --help --json -v --salvage --journal=" ;;
	write)    echo "-h --help --script= --ops= --seed= --csum= --async-commit --crash-after= --torn= --reproduce= --dump-script=" ;;
	esac
}

# The values an option takes, or nothing when it takes a file name or a number.
_e4recover_values() {
	case $1 in
	--policy)    echo "stop skip-block skip-transaction all auto ask none" ;;
	--csum)      echo "none v1 v2 v3" ;;
	--reproduce) echo "ialloc-3.4" ;;
	esac
}

# File names starting with $1, one candidate each (a name with a space stays one word).
_e4recover_files() {
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -- "$1"))
}

_e4recover() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev= opt= sub= i
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()

	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "check logdump replay diagnose write --help --version" -- "$cur"))
		return 0
	fi
	sub=${COMP_WORDS[1]}

	# "--opt=value": bash splits it at '=' (COMP_WORDBREAKS), into "--opt" "=" "value".
	if [ "$cur" = "=" ]; then
		opt=$prev cur=
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
		opt=${COMP_WORDS[COMP_CWORD-2]}
	elif [[ $cur == --*=* ]]; then	# '=' is not a word break here
		opt=${cur%%=*} cur=${cur#*=}
	elif [[ " $(_e4recover_options "$sub") " == *" $prev= "* ]]; then
		opt=$prev	# "--opt value"
	elif [ "$prev" = -C ]; then
		return 0	# a file descriptor
	fi

	if [ -n "$opt" ]; then
		local values
		values=$(_e4recover_values "$opt")
		if [ -n "$values" ]; then
			COMPREPLY=($(compgen -W "$values" -- "$cur"))
		else
			case $opt in
			--undo | --script | --journal | --dump-script)
				_e4recover_files "$cur" ;;
			esac
		fi
		return 0
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_e4recover_options "$sub")" -- "$cur"))
		# an option that takes a value: no space after its '='
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2> /dev/null
		return 0
	fi
	_e4recover_files "$cur"	# IMAGE
	return 0
}
# -o filenames: candidates are paths to bash (a directory gets its /, so completion goes on
# into it; names with spaces are quoted), as for any command that takes files.
complete -o filenames -F _e4recover e4recover
