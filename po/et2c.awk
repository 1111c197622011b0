# Turn the messages of a com_err table (.et) into N_() strings xgettext can read.
# An entry is `ec NAME,` followed (on the same or a later line) by its "message".
/^[ \t]*ec[ \t]/ { pending = 1 }
pending && match($0, /"([^"\\]|\\.)*"/) {
	printf "N_(%s);\n", substr($0, RSTART, RLENGTH)
	pending = 0
}
