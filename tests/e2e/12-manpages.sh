# Each command's --help and its man page (doc/shardrec-CMD.1.scd) name the
# same options, and `shardrec help` and shardrec(1) the same commands: an
# option added to one side only fails here. -h/--help is left out (every
# command takes it; not every --help lists it). Needs no perf.
. "$(dirname "$0")/lib.sh"
doc=$(cd "$(dirname "$0")/../.." && pwd)/doc

# Options in the option column of --help: lines indented 1-8 spaces that start
# with '-', up to the first run of two spaces (descriptions may name options).
help_opts() {
	"$SHARDREC" "$1" --help | sed -nE '/^ {1,8}-/{s/^ +//; s/  .*//; p}' |
		grep -oE '(^|[ ,|])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[ ,|]//' |
		grep -vxE -e '-h' -e '--help' | sort -u
}

# Options in the man source: bold words on the term lines (at column 0,
# starting with "*-") of its OPTIONS section; the indented paragraphs below
# them and the other sections may name others.
man_opts() {
	sed -n '/^# OPTIONS/,/^# [A-Z]/p' "$1" | grep -E '^\*-' | grep -oE '\*--?[A-Za-z][A-Za-z0-9-]*\*' | tr -d '*' |
		grep -vxE -e '-h' -e '--help' | sort -u
}

# Commands: the "Commands:" block of `shardrec help`, and the terms of
# shardrec(1)'s COMMANDS section.
help_cmds() {
	"$SHARDREC" help | sed -n '/^Commands:/,$p' | sed -nE 's/^  ([a-z]+)( .*)?$/\1/p' | sort -u
}
man_cmds() {
	sed -n '/^# COMMANDS/,/^# [A-Z]/p' "$doc/shardrec.1.scd" | sed -nE 's/^\*([a-z]+)\*$/\1/p' | sort -u
}

bad=0
# compare WHAT LEFT-NAME LEFT-FILE RIGHT-NAME RIGHT-FILE
compare() {
	local d
	d=$( (diff "$3" "$5" || true) | sed -nE "s/^< (.*)/  \1: in $2, not in $4/p; s/^> (.*)/  \1: in $4, not in $2/p")
	if [ -n "$d" ]; then
		echo "$1:"
		echo "$d"
		bad=1
	else
		echo "$1: $(wc -l <"$3") agree"
	fi
}

help_cmds >cmds.help
man_cmds >cmds.man
[ -s cmds.help ] || fail "no commands found in shardrec help"
compare "commands" "shardrec help" cmds.help "shardrec(1)" cmds.man
for cmd in $(grep -vxE 'help|version' cmds.help); do
	page=$doc/shardrec-$cmd.1.scd
	[ -f "$page" ] || { echo "$cmd: no man page $page"; bad=1; continue; }
	help_opts "$cmd" >"$cmd.help"
	man_opts "$page" >"$cmd.man"
	[ -s "$cmd.help" ] || fail "$cmd --help: no options found"
	compare "$cmd options" "'shardrec $cmd --help'" "$cmd.help" "shardrec-$cmd(1)" "$cmd.man"
done
for page in "$doc"/shardrec-*.1.scd; do
	cmd=$(basename "$page" .1.scd)
	grep -qx "${cmd#shardrec-}" cmds.help || { echo "$page: no such command"; bad=1; }
done
[ "$bad" = 0 ] || fail "--help and the man pages disagree (fix doc/*.scd or the usage text)"
