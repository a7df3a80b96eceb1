# SPDX-License-Identifier: GPL-2.0
# ./build.sh check: the series applies with git am on the pristine base,
# the mirror equals the tree after it, and each patch passes checkpatch
# --strict and kernel-doc. Each check prints one TAP-like line.
# Sourced by build.sh.

CHECKPATCH_ALLOW=$HARNESS/checkpatch.allow

# result NAME STATUS: record one check for the summary.
CHECK_PASS=0 CHECK_FAIL=0
result() {
	if [ "$2" = 0 ]; then
		echo "ok - $1"
		CHECK_PASS=$((CHECK_PASS + 1))
	else
		echo "not ok - $1"
		CHECK_FAIL=$((CHECK_FAIL + 1))
	fi
}

checkpatch_ignores() {
	[ -r "$CHECKPATCH_ALLOW" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$CHECKPATCH_ALLOW" | awk '{print $1}' |
		paste -sd, -
}

# Debian's codespell keeps its dictionary inside the Python package.
codespell_dict() {
	/usr/bin/python3 -c 'import codespell_lib, os
print(os.path.join(os.path.dirname(codespell_lib.__file__), "data", "dictionary.txt"))'
}

# covered PATCH: every file PATCH adds already has a maintainer in the
# series' MAINTAINERS (an entry other than THE REST's). checkpatch cannot
# see that and asks "does MAINTAINERS need updating?" for any new file.
covered() {
	local f
	for f in $(awk '/^diff --git /{f=$4} /^new file mode/{print substr(f, 3)}' "$1"); do
		# A later patch of the series may remove it: its directory.
		[ -e "$AMTREE/$f" ] || f=$(dirname "$f")
		(cd "$AMTREE" && scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-rolestats --no-l --no-r -f "$f" 2>/dev/null) |
			grep -qv 'Linus Torvalds' || return 1
	done
}

check_checkpatch() {
	local p out rc ign dict pign
	ign=$(checkpatch_ignores)
	dict=$(codespell_dict)
	for p in $(series_diffs); do
		# The tooling tests look at one patch, or none: CHECK_PATCHES.
		[ -z "${CHECK_PATCHES+set}" ] || [[ $p == $CHECK_PATCHES ]] || continue
		pign=$ign
		covered "$PATCHES/$p" && pign=${pign:+$pign,}FILE_PATH_CHANGES
		out=$(cd "$AMTREE" && scripts/checkpatch.pl --strict --showfile \
			--codespell --codespellfile "$dict" \
			--color=never --summary-file ${pign:+--ignore "$pign"} "$PATCHES/$p" 2>&1)
		rc=0
		if ! echo "$out" | grep -q 'total: 0 errors, 0 warnings, 0 checks' ||
		   echo "$out" | grep -q -e Traceback -e 'No codespell'; then
			echo "$out" | sed 's/^/  /'
			rc=1
		fi
		result "checkpatch --strict: $p" $rc
	done
}

# kernel-doc on every C file and header the series adds or changes: no
# warning that the same file (before a rename, if any) did not have.
check_kerneldoc() {
	local c=$1 f old out tmp n=0 bad=0
	tmp=$(mktemp -d)
	while read -r f old; do
		[ -f "$AMTREE/$f" ] || continue
		n=$((n + 1))
		(cd "$AMTREE" && scripts/kernel-doc -none -Wall "$f" 2>&1) |
			sed -E 's/^(Warning: )?[^ :]*:[0-9]+:? //' | sort -u >"$tmp/new"
		: >"$tmp/old"
		if git_base cat-file -e "$BASE_BRANCH:$old" 2>/dev/null; then
			mkdir -p "$tmp/base/$(dirname "$old")"
			git_base show "$BASE_BRANCH:$old" >"$tmp/base/$old"
			(cd "$tmp/base" && "$AMTREE/scripts/kernel-doc" -none -Wall "$old" 2>&1) |
				sed -E 's/^(Warning: )?[^ :]*:[0-9]+:? //' | sort -u >"$tmp/old"
		fi
		out=$(comm -23 "$tmp/new" "$tmp/old")
		[ -z "$out" ] || { echo "$out" | sed "s|^|  $f: |"; bad=1; }
	done < <(git_base diff -M --name-status "$BASE_BRANCH" "$c" -- '*.c' '*.h' |
		 awk '$1 ~ /^R/ { print $3, $2; next } $1 != "D" { print $2, $2 }' | grep -v '^tools/')
	rm -rf "$tmp"
	result "kernel-doc -none -Wall: no new warning in $n files" $bad
}

# check --bisect[=N]: build after each patch (from the Nth) in a tree of
# its own. A start serves a series whose first patches were built as they
# are, after a change to a later one.
# The tree and its build directory sit as src/ and out/kernel/ do, so that
# ccache (whose base directory is the cache) finds the main build's
# objects for every file a patch does not change.
check_bisect() {
	local from=${1:-1} tree=$BCACHE-bisect/src kout=$BCACHE-bisect/out/kernel c rc t
	worktree "$tree"
	mkdir -p "$kout"
	[ -r "$KOUT/.config" ] || die "build the kernel first"
	for c in $(git -C "$AMTREE" rev-list --reverse "$BASE_BRANCH..HEAD" | tail -n +"$from"); do
		t=$(date +%s)
		# The full config each time: an option an earlier patch lacked
		# (a KUnit suite, say) must be built once its patch adds it.
		cp "$KOUT/.config" "$kout/.config" &&
		git -C "$tree" checkout -q -f --detach "$c" &&
		kmake_at "$tree" "$kout" olddefconfig bzImage modules >"$kout/build.log" 2>&1
		rc=$?
		[ $rc = 0 ] || tail -n 20 "$kout/build.log" | sed 's/^/  /'
		result "builds after: $(git -C "$tree" log -1 --format=%s "$c") ($(($(date +%s) - t))s)" $rc
	done
}

# compile_touched: configure the am tree (base + series) as the guest's
# kernel and compile every kernel file the series adds or changes: files
# in directories of the base one by one, new directories whole (with the
# helper and the libbpf it links). What a backport proves without a boot.
compile_touched() {
	local kout=$OUT/compile targets
	configure_kernel "$AMTREE" "$kout" || return 1
	targets=$(git -C "$AMTREE" diff --name-only --diff-filter=AM "$BASE_BRANCH" HEAD -- '*.c' |
		grep -v '^tools/' | while read -r f; do
			d=$(dirname "$f")
			if git_base cat-file -e "$BASE_BRANCH:$d" 2>/dev/null; then
				echo "${f%.c}.o"
			else
				# The outermost directory the series adds.
				while ! git_base cat-file -e "$BASE_BRANCH:$(dirname "$d")" 2>/dev/null; do
					d=$(dirname "$d")
				done
				echo "$d/"
			fi
		done | sort -u)
	[ -n "$targets" ] || { echo "no kernel file to compile"; return 1; }
	# The helper includes the uapi headers of usr/include: install first.
	{ kmake_at "$AMTREE" "$kout" headers && kmake_at "$AMTREE" "$kout" $targets; } 2>&1 |
		tail -n 30
	return "${PIPESTATUS[0]}"
}

# check_applies: the series applies to the pristine base, in the am tree.
check_applies() {
	local out
	worktree "$AMTREE"
	out=$(am_series "$AMTREE" 2>&1)
	result "series applies with git am --whitespace=error-all on $BASE" $?
	[ -z "$out" ] || echo "$out" | sed 's/^/  /'
}

# ./build.sh compile: the series applies to this base and its files compile.
cmd_compile() {
	local out
	CHECK_PASS=0 CHECK_FAIL=0
	if [ "$BASE" = 6.12 ] && [ -z "$BASE_TREE" ]; then
		out=$(check_backport_fresh 2>&1)
		result "6.12 backport is what the mainline series generates" $?
		[ -z "$out" ] || echo "$out" | sed 's/^/  /'
	fi
	check_applies
	if [ $CHECK_FAIL = 0 ]; then
		out=$(compile_touched 2>&1)
		result "$BASE series: every kernel file it touches compiles" $?
		[ -z "$out" ] || echo "$out" | sed 's/^/  /'
	fi
	[ $CHECK_FAIL = 0 ]
}

# The 6.12 LTS backport, from check of the mainline series.
check_backport() {
	local out
	out=$(BPFILTER_BASE=6.12 "$TOP/build.sh" compile 2>&1)
	result "6.12 backport: applies and compiles (./build.sh --base 6.12 compile)" $?
	echo "$out" | grep -v '^ok - ' | grep -v '^==>' | sed 's/^/  /'
}

cmd_check() {
	local bisect=0 c out
	case "${1:-}" in
	--bisect) bisect=1 ;;
	--bisect=[1-9]*) bisect=${1#--bisect=} ;;
	esac
	CHECK_PASS=0 CHECK_FAIL=0
	check_applies
	if [ $CHECK_FAIL = 0 ]; then
		c=$(git -C "$AMTREE" rev-parse HEAD)
		if has_mirror; then
			out=$(check_mirror "$c")
			result "mirror equals the tree after the series" $?
			[ -z "$out" ] || echo "$out" | sed 's/^/  /'
		fi
		check_checkpatch
		check_kerneldoc "$c"
		[ "$bisect" = 0 ] || check_bisect "$bisect"
	fi
	[ "$BASE" != mainline ] || [ -n "$BASE_TREE" ] || [ -n "${CHECK_PATCHES+set}" ] ||
		check_backport
	[ -n "${IN_TEST:-}" ] || echo "check: $CHECK_PASS passed, $CHECK_FAIL failed"
	[ $CHECK_FAIL = 0 ]
}
