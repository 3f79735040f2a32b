# SPDX-License-Identifier: GPL-2.0-only
# Builds the cgroup trees of the guest tests and runs memload in leaves.
# Sourced after lib.sh.
TREE=$CG/vt
TAB=$(printf '\t')
RAW=$(printf '\351')      # a lone 0xE9 byte: invalid UTF-8
UTF8=$(printf '\303\251') # U+00E9 in UTF-8
# Level-1 names: plain, spaces and odd characters (every byte but / and NUL
# is allowed in a cgroup name, but the kernel refuses a newline; add_odd_names
# adds a 255-byte name).
# shellcheck disable=SC2089,SC2090 # the quotes and backslashes are meant literally
L1_NAMES="plain|with space|quote\"d|back\\slash|tab${TAB}bed|utf8-${UTF8}|raw-${RAW}|dollar\$x|comma,colon:semi;|star*?[br]"

# enable_memory DIR: lets DIR's children have the memory controller.
enable_memory() {
	echo +memory > "$1/cgroup.subtree_control" || { why "cannot enable memory in $1"; return 1; }
}

# build_tree N1 N2 N3 CHAINS: TREE/<L1 name>/m<j>/l<k>, N1 (<= 10) x N2 x N3
# (N3 = 0: two levels), plus CHAINS chains of six more levels below the last
# leaf of the first CHAINS level-1 dirs. Prints the leaves for loads to
# $WORK/leaves, one per line: "<dir>".
build_tree() {
	n1=$1 n2=$2 n3=$3 chains=$4
	enable_memory "$CG" || return 1
	mkdir "$TREE" && enable_memory "$TREE" || { why "cannot create $TREE"; return 1; }
	: > "$WORK/leaves"
	i=0
	old_ifs=$IFS
	IFS='|'
	set -f
	set -- $L1_NAMES
	set +f
	IFS=$old_ifs
	for l1 in "$@"; do
		[ $i -lt "$n1" ] || break
		d1=$TREE/$l1
		mkdir "$d1" && enable_memory "$d1" || { why "mkdir/enable $d1 failed"; return 1; }
		j=0
		while [ $j -lt "$n2" ]; do
			d2=$d1/m$j
			mkdir "$d2" || { why "mkdir $d2 failed"; return 1; }
			if [ "$n3" -gt 0 ]; then
				enable_memory "$d2" || return 1
				k=0 list=
				while [ $k -lt "$n3" ]; do
					list="$list l$k"
					k=$((k + 1))
				done
				# One mkdir for all level-3 dirs of d2.
				(cd "$d2" && mkdir $list) || { why "mkdir below $d2 failed"; return 1; }
				if [ $j -lt 5 ]; then echo "$d2/l$j" >> "$WORK/leaves"; fi
			elif [ $j -lt 1 ]; then
				echo "$d2" >> "$WORK/leaves"
			fi
			j=$((j + 1))
		done
		if [ $i -lt "$chains" ]; then
			d=$d1/m$((n2 - 1))/l$((n3 - 1))
			for c in 1 2 3 4 5 6; do
				enable_memory "$d" || return 1
				d=$d/deep$c
				mkdir "$d" || { why "mkdir $d failed"; return 1; }
			done
			echo "$d" >> "$WORK/leaves"
		fi
		i=$((i + 1))
	done
	return 0
}

# set_limits: memory.max, .high, .low, .min and .swap.max on the level-1
# dirs and their m0 and m1 (different values per dir, all above what the
# loads use, so nothing is throttled or reclaimed), so that the limit stats
# are checked against values other than "max" and 0. LIMITS_NOTE says what.
set_limits() {
	n=0
	for d1 in "$TREE"/*/; do
		d1=${d1%/}
		n=$((n + 1))
		for d in "$d1" "$d1/m0" "$d1/m1"; do
			[ -d "$d" ] || continue
			echo $(( (2048 + n * 64) * 1048576 )) > "$d/memory.max" || { why "cannot set $d/memory.max"; return 1; }
			echo $(( (1024 + n * 32) * 1048576 )) > "$d/memory.high" || { why "cannot set $d/memory.high"; return 1; }
			echo $(( n * 4096 * 16 )) > "$d/memory.low" || { why "cannot set $d/memory.low"; return 1; }
			echo $(( n * 4096 * 8 )) > "$d/memory.min" || { why "cannot set $d/memory.min"; return 1; }
			if [ -e "$d/memory.swap.max" ]; then
				echo $(( n * 1048576 )) > "$d/memory.swap.max" || { why "cannot set $d/memory.swap.max"; return 1; }
			fi
		done
	done
	LIMITS_NOTE="limits set on $n level-1 dirs and their m0, m1"
}

# add_odd_names: below TREE, a cgroup whose name is 255 bytes (NAME_MAX)
# with a child and a load in it, and a try at a name with a newline, which
# cgroup_mkdir() refuses with EINVAL (so that /proc/PID/cgroup stays
# parseable): when the kernel refuses it, ODD_NOTE says so; if a kernel took
# it, it would be part of the tree and of every check.
LONG_NAME=$(printf '%0255d' 0 | tr 0 L)
# Names no JSON encoder may merge or mangle: a UTF-16 surrogate in UTF-8, an
# overlong '/', a code point above U+10FFFF, the byte 0xFF beside the
# character U+00FF, control bytes and DEL.
HOSTILE_NAMES="$(printf 'sur\355\240\200')|$(printf 'over\300\257')|$(printf 'big\364\220\200\200')|$(printf 'ff\377')|$(printf 'ff\303\277')|$(printf 'ctl\001\033\177')"
add_odd_names() {
	d=$TREE/$LONG_NAME
	mkdir "$d" && enable_memory "$d" && mkdir "$d/m0" || { why "cannot make $d/m0"; return 1; }
	old_ifs=$IFS
	IFS='|'
	for n in $HOSTILE_NAMES; do
		mkdir "$TREE/$n" || { IFS=$old_ifs; why "cannot make a hostile name below $TREE"; return 1; }
	done
	IFS=$old_ifs
	echo "$d/m0" >> "$WORK/leaves"
	if mkdir "$TREE/new
line" 2> "$WORK/mkdir.err"; then
		ODD_NOTE="a name with a newline exists"
	elif grep -q 'Invalid argument' "$WORK/mkdir.err"; then
		ODD_NOTE="mkdir of a name with a newline: EINVAL"
	else
		why "mkdir of a name with a newline failed unexpectedly: $(first_line "$WORK/mkdir.err")"
		return 1
	fi
}

# start_loads ANON_MIB FILE_MIB: one memload per line of $WORK/leaves (every
# second one also writes a tmpfs file), waits until all are ready.
start_loads() {
	anon=$1 file=$2
	mkdir -p /tmp/loadfiles "$WORK/ready"
	rm -f "$WORK/ready"/* "$WORK/load.pids"
	n=0
	while IFS= read -r leaf; do
		if [ $((n % 2)) -eq 0 ]; then
			fargs="-f /tmp/loadfiles/f$n -s $file"
		else
			fargs=
		fi
		# The subshell moves itself into the leaf, then becomes memload.
		( echo 0 > "$leaf/cgroup.procs" && exec memload -a "$anon" $fargs -r "$WORK/ready/$n" ) &
		echo $! >> "$WORK/load.pids"
		n=$((n + 1))
	done < "$WORK/leaves"
	t=0
	while [ "$(ls "$WORK/ready" | wc -l)" -lt $n ]; do
		t=$((t + 1))
		if [ $t -gt 600 ]; then
			why "only $(ls "$WORK/ready" | wc -l) of $n loads became ready"
			return 1
		fi
		sleep 0.1
	done
	echo "$n loads ready"
	NLOADS=$n
	return 0
}

# stop_loads: freezes every load (SIGSTOP) and waits for the kernel's
# periodic stat flush (2 s) so that memory.stat stops changing.
stop_loads() {
	kill -STOP $(cat "$WORK/load.pids")
	sleep 3
}

# count_cgroups DIR: the number of cgroups at and below DIR.
count_cgroups() { check_values inodes "$1" | wc -l; }
