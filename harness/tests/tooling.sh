# SPDX-License-Identifier: GPL-2.0
# Tests of the tooling itself: ./build.sh check must fail on a damaged
# patch, a mirror that differs from the series and a checkpatch report;
# fold must carry a mirror edit into the right patch. Each runs on a copy
# of this checkout. Sourced by build.sh.

# copy_checkout: a scratch copy of the checkout; prints its path.
copy_checkout() {
	local dir
	dir=$(mktemp -d "$OUT/tooling.XXXXXX") || return 1
	(cd "$TOP" && git ls-files -co --exclude-standard -z |
		rsync -a --ignore-missing-args --from0 --files-from=- ./ "$dir/") || return 1
	echo "$dir"
}

# sed reads to the end: with pipefail, head would let grep die of SIGPIPE.
first_diff_patch() { series_diffs | sed -n 1p; }

# expect_check DIR PATTERN...: check fails in DIR and prints each PATTERN.
expect_check() {
	local dir=$1 out
	shift
	out=$(cd "$dir" && ./build.sh check 2>&1) && { echo "  check passed"; return 1; }
	while [ $# -gt 0 ]; do
		echo "$out" | grep -q -- "$1" || { echo "  no '$1' in:"; echo "$out" | sed 's/^/  /'; return 1; }
		shift
	done
}

tooling_damaged_patch() {
	local dir p
	dir=$(copy_checkout) && p=$dir/patches/$(first_diff_patch) || return 1
	# Change the first context line of the first hunk: git am must refuse.
	awk '!done && hunk && /^ / { $0 = " damaged" substr($0, 2); done = 1 }
	     /^@@ / { hunk = 1 } { print }' "$p" >"$p.new" && mv "$p.new" "$p"
	expect_check "$dir" "not ok - series applies"
	local rc=$?
	rm -rf "$dir"
	return $rc
}

tooling_mirror_differs() {
	local dir f rc
	dir=$(copy_checkout) || return 1
	f=$(cd "$dir" && git_base diff --name-only "$BASE_BRANCH" "$(series_commit)" |
		grep -vx MAINTAINERS | sed -n 1p)
	echo "# stray" >>"$dir/$f"
	CHECK_PATCHES=none expect_check "$dir" "ok - series applies" \
		"not ok - mirror" "differs from the series: $f"
	rc=$?
	rm -rf "$dir"
	return $rc
}

# A '+' line of a .c file becomes a macro with a trailing semicolon, in the
# patch and in the mirror alike: only checkpatch can object.
tooling_checkpatch() {
	local dir p f line rc
	dir=$(copy_checkout) || return 1
	# The first numeric #define that a patch adds to a .c file.
	read -r p f line < <(cd "$dir/patches" && awk '
		/^\+\+\+ b\// { file = substr($0, 7) }
		file ~ /\.c$/ && /^\+#define [A-Z_]+[[:space:]]+[0-9]+$/ {
			print FILENAME, file, substr($0, 2); exit
		}' $(series_diffs))
	[ -n "$line" ] || { echo "  no #define in a .c file of the series"; rm -rf "$dir"; return 1; }
	sed -i "s|^+$line\$|+$line;|" "$dir/patches/$p"
	sed -i "s|^$line\$|$line;|" "$dir/$f"
	CHECK_PATCHES=$p expect_check "$dir" "ok - mirror equals" \
		"not ok - checkpatch" "trailing semicolon"
	rc=$?
	rm -rf "$dir"
	return $rc
}

# fold: an edit in the mirror lands in the patch that owns the file.
tooling_fold() {
	local dir f rc=1 work
	dir=$(copy_checkout) || return 1
	work=$OUT/tooling-work
	f=tools/testing/selftests/bpfilter/Makefile
	echo "# folded by the tooling test" >>"$dir/$f"
	# checkpatch of the one patch that changes: check runs it on every
	# patch already.
	if (cd "$dir" && export BPFILTER_WORK=$work BPFILTER_BRANCH=tooling-fold \
	    CHECK_PATCHES='*-selftests-bpfilter-test-the-*' &&
	    ./build.sh fold >/dev/null 2>&1 &&
	    ./build.sh check >/dev/null 2>&1) &&
	   grep -rq --include='*.patch' '^+# folded by the tooling test' "$dir/patches" &&
	   [ "$(find "$dir/patches" -name '*.patch' | wc -l)" = \
	     "$(find "$PATCHES" -name '*.patch' | wc -l)" ]; then
		rc=0
	else
		echo "  fold did not carry the edit into the series"
	fi
	git_base worktree remove --force "$work" 2>/dev/null
	git_base branch -q -D tooling-fold 2>/dev/null
	rm -rf "$dir"
	return $rc
}
