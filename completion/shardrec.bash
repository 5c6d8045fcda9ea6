# bash completion for shardrec(1): commands, each command's options (read
# from its --help), events (shardrec list --raw-dump), --threads specs,
# clocks, call-graph and branch filter modes. Needs bash only (not the
# bash-completion package's helpers). Installed by make install as
# $(PREFIX)/share/bash-completion/completions/shardrec.

# Options in the option column of `shardrec CMD --help`.
_shardrec_opts()
{
	"$1" "$2" --help 2>/dev/null | sed -nE '/^ {1,8}-/{s/^ +//; s/  .*//; p}' |
		grep -oE '(^|[ ,|])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[ ,|]//'
}

# Events for the word @2 of an -e list: completes its last comma element.
_shardrec_events()
{
	local bin=$1 cur=$2 head="" last=$2
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		last=${cur##*,}
	fi
	local IFS=$'\n'
	COMPREPLY+=($(compgen -P "$head" -W "$("$bin" list --raw-dump 2>/dev/null)" -- "$last"))
}

_shardrec()
{
	local bin=${COMP_WORDS[0]} line cur prev cmd="" i dashdash=0
	local cmds="record job jobview merge topology loss list help version"
	local threads="auto numa package l3 cache core cpu"
	local clocks="monotonic monotonic_raw boottime realtime tai mono raw boot real"
	# perf 6.1's -j modes (recorder/events/branch_filter.h)
	local branch="any any_call any_ret ind_call ind_jmp call cond in_tx no_tx abort_tx save_type stack priv u k hv"

	# The whole word under the cursor: bash splits COMP_WORDS at : and =.
	line=${COMP_LINE:0:COMP_POINT}
	cur=${line##*[[:space:]]}
	prev=${line%"$cur"}
	prev=${prev%"${prev##*[![:space:]]}"}
	prev=${prev##*[[:space:]]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ -z $cmd && ${COMP_WORDS[i]} != -* ]]; then
			cmd=${COMP_WORDS[i]}
		elif [[ ${COMP_WORDS[i]} == -- ]]; then
			dashdash=1
		fi
	done
	COMPREPLY=()

	if [[ -z $cmd || $cmd == help ]]; then
		[[ -z $cmd || $COMP_CWORD -le 2 ]] && COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
	elif ((dashdash)); then
		COMPREPLY=($(compgen -c -f -- "$cur"))
	elif [[ $cur == --threads=* ]]; then
		COMPREPLY=($(compgen -P --threads= -W "$threads" -- "${cur#--threads=}"))
	elif [[ $cur == --event=* ]]; then
		_shardrec_events "$bin" "${cur#--event=}"
		COMPREPLY=("${COMPREPLY[@]/#/--event=}")
	elif [[ $cur == --switch-output-event=* ]]; then
		_shardrec_events "$bin" "${cur#--switch-output-event=}"
		COMPREPLY=("${COMPREPLY[@]/#/--switch-output-event=}")
	elif [[ $cur == --switch-output=* ]]; then
		COMPREPLY=($(compgen -P --switch-output= -W "signal 100M 30s 10m" -- "${cur#--switch-output=}"))
	elif [[ $cur == --affinity=* ]]; then
		COMPREPLY=($(compgen -P --affinity= -W "cpu node sys" -- "${cur#--affinity=}"))
	elif [[ $cur == --clockid=* ]]; then
		COMPREPLY=($(compgen -P --clockid= -W "$clocks" -- "${cur#--clockid=}"))
	elif [[ $cmd == jobview && ($prev == --top || $prev == -j || $prev == --jobs) ]]; then
		: # a number (loss's -j is --json, without one)
	elif [[ ($cmd == record || $cmd == job) && ($prev == -j || $prev == --branch-filter) ]]; then
		# a comma list (loss's -j is --json): its last element
		COMPREPLY=($(compgen -P "${cur%"${cur##*,}"}" -W "$branch" -- "${cur##*,}"))
	elif [[ $cmd == jobview && $prev == --perf ]]; then
		COMPREPLY=($(compgen -c -f -- "$cur"))
	else
		case $prev in
		-e | --event | --switch-output-event) _shardrec_events "$bin" "$cur" ;;
		-k | --clockid) COMPREPLY=($(compgen -W "$clocks" -- "$cur")) ;;
		--call-graph) COMPREPLY=($(compgen -W "fp dwarf" -- "$cur")) ;;
		# -o -: perf's pipe format on stdout
		-o | --output) COMPREPLY=($(compgen -f -- "$cur") $(compgen -W - -- "$cur")) ;;
		--topology-xml | --plot) COMPREPLY=($(compgen -f -- "$cur")) ;;
		--shard-dir | --buildid-dir) COMPREPLY=($(compgen -d -- "$cur")) ;;
		--affinity) COMPREPLY=($(compgen -W "cpu node sys" -- "$cur")) ;;
		-u | --uid) COMPREPLY=($(compgen -u -- "$cur")) ;;
		# processes: their pids, as perf's completion offers
		-p | --pid) COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur")) ;;
		-C | --cpu | -t | --tid | -G | --cgroup | -F | --freq | \
			-c | --count | -m | --mmap-pages | -D | --delay | -r | --realtime | \
			--max-size | --filter | --control | --synthetic | --ready-timeout | \
			--switch-max-files | --kill-wait | --merge-rate) ;;
		*)
			if [[ $cur == -* ]]; then
				local opts
				opts=$(_shardrec_opts "$bin" "$cmd")
				# job takes record's options but rotation: one output file per node
				[[ $cmd == job ]] && opts+=" $(_shardrec_opts "$bin" record |
					tr ' ' '\n' | grep -v -e '^--switch-' -e '^--timestamp-filename' | tr '\n' ' ')"
				COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
				[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == --threads ]] &&
					COMPREPLY=(--threads=) && compopt -o nospace 2>/dev/null
			else
				case $cmd in
				list) COMPREPLY=($(compgen -W "hw sw cache tracepoint pmu" -- "$cur")) ;;
				merge) COMPREPLY=($(compgen -d -- "$cur")) ;;
				loss) COMPREPLY=($(compgen -f -- "$cur")) ;;
				# a node's perf.data or FILE.json, or a directory of them
				jobview)
					COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.data' -- "$cur")
						$(compgen -f -X '!*.json' -- "$cur"))
					compopt -o filenames 2>/dev/null
					;;
				record | job) COMPREPLY=($(compgen -c -- "$cur")) ;;
				esac
			fi
			;;
		esac
	fi
	# Bash replaces only the part of the word after its last : or = (when
	# they are in COMP_WORDBREAKS): drop that much from each reply.
	local keep=${cur%"${cur##*[:=]}"}
	if [[ -n $keep && $COMP_WORDBREAKS == *[:=]* ]]; then
		COMPREPLY=("${COMPREPLY[@]#"$keep"}")
	fi
	# A term (PMU/TERM=) or a PMU// goes on without a space.
	[[ ${COMPREPLY[*]} == *[/=]* ]] && compopt -o nospace 2>/dev/null
	return 0
}
complete -F _shardrec shardrec
