# SPDX-License-Identifier: GPL-2.0
# The 6.12 LTS backport, generated from the mainline series: what differs
# between the two kernels is said once, in stable-6.12/, instead of in a
# second copy of every patch that would drift from the first.
#   pre/*.patch      applied to 6.12 first (what mainline removed and the
#                    series brings back in another form)
#   rewrite.sed      run on every mainline patch (names and macros that
#                    differ between the kernels)
#   exclude          "PATCH PATH": a file of a patch that 6.12 already has
#   replace/PATCH    a patch of its own, for a mainline patch that does not
#                    fit 6.12 (PATCH: the file name without its number)
#   fixup/PATCH      a diff folded into the backported patch
#   cover-letter     the backport's cover letter, its subject first
# Sourced by build.sh; ./build.sh backport writes stable-6.12/series and
# stable-6.12/patches/, ./build.sh check regenerates and compares them.

BP_DIR=$TOP/stable-6.12

# bp_slug FILE: a patch's name without its number and directory.
bp_slug() { local b=${1##*/}; echo "${b#[0-9][0-9][0-9][0-9]-}"; }

# bp_apply TREE PATCH: one mainline patch as one backported commit.
bp_apply() {
	local tree=$1 p=$2 slug tmp args=() path date
	slug=$(bp_slug "$p")
	tmp=$(mktemp) || return 1
	if [ -r "$BP_DIR/replace/$slug" ]; then
		cp "$BP_DIR/replace/$slug" "$tmp"
	else
		sed -f "$BP_DIR/rewrite.sed" "$TOP/patches/$p" >"$tmp"
	fi
	while read -r path; do
		args+=("--exclude=$path")
	done < <(awk -v s="$slug" '$1 == s { print $2 }' "$BP_DIR/exclude" 2>/dev/null)
	if ! git -C "$tree" am -q -3 --committer-date-is-author-date "${args[@]}" "$tmp"; then
		echo "backport: $p does not apply to 6.12" >&2
		git -C "$tree" am --abort
		rm -f "$tmp"
		return 1
	fi
	rm -f "$tmp"
	[ -r "$BP_DIR/fixup/$slug" ] || return 0
	date=$(git -C "$tree" log -1 --format=%aD)
	git -C "$tree" apply --index "$BP_DIR/fixup/$slug" &&
		GIT_COMMITTER_DATE=$date git -C "$tree" commit -q --amend --no-edit ||
		{ echo "backport: fixup/$slug does not apply" >&2; return 1; }
}

# bp_generate DIR: the backport's series and patches/ into DIR.
bp_generate() {
	local dir=$1 tree=$BCACHE/backport p main=$CACHE/mainline/src/.git
	# git am -3 finds the blobs of the mainline patches in the mainline
	# base repository, made available to this one.
	[ -d "$main/objects" ] || env -u BPFILTER_BASE_TREE BPFILTER_BASE=mainline \
		"$TOP/build.sh" base >&2 || return 1
	grep -qxF "$main/objects" "$BASE_GIT/objects/info/alternates" 2>/dev/null ||
		echo "$main/objects" >>"$BASE_GIT/objects/info/alternates"
	worktree "$tree"
	git -C "$tree" am --abort >/dev/null 2>&1
	git -C "$tree" reset -q --hard && git -C "$tree" clean -qfdx &&
		git -C "$tree" checkout -q -B backport "$BASE_BRANCH" || return 1
	for p in "$BP_DIR"/pre/*.patch; do
		git -C "$tree" am -q --committer-date-is-author-date "$p" ||
			{ echo "backport: $p does not apply" >&2; git -C "$tree" am --abort; return 1; }
	done
	for p in $(grep -v -e '^#' -e '^[[:space:]]*$' -e cover-letter "$TOP/series"); do
		bp_apply "$tree" "$p" || return 1
	done
	git -C "$tree" config branch.backport.description "$(cat "$BP_DIR/cover-letter")"
	rm -rf "$dir/patches" && mkdir -p "$dir/patches" || return 1
	GIT_COMMITTER_NAME=$(git -C "$tree" log -1 --format=%an) \
	GIT_COMMITTER_EMAIL=$(git -C "$tree" log -1 --format=%ae) \
		git -C "$tree" format-patch -q -M --abbrev=9 --cover-letter --cover-from-description=subject \
		--base="$BASE_BRANCH" --zero-commit -o "$dir/patches" "$BASE_BRANCH..backport" || return 1
	# The cover letter's date is the last patch's: the output is the
	# same on every run, so check can compare it.
	sed -i "s/^Date: .*/Date: $(git -C "$tree" log -1 --format=%aD)/" \
		"$dir/patches/0000-cover-letter.patch"
	(cd "$dir/patches" && ls) >"$dir/series"
}

# ./build.sh backport: regenerate stable-6.12/ from the mainline series.
cmd_backport() {
	bp_generate "$BP_DIR" || die "backport failed"
	log "wrote ${BP_DIR#$TOP/}/series and patches/ ($(grep -vc cover-letter "$BP_DIR/series") patches)"
}

# check_backport_fresh: stable-6.12/ is what the mainline series generates.
check_backport_fresh() {
	local tmp out rc
	tmp=$(mktemp -d) || return 1
	if bp_generate "$tmp" >"$tmp.log" 2>&1; then
		out=$(diff -r "$BP_DIR/patches" "$tmp/patches" && diff "$BP_DIR/series" "$tmp/series")
		rc=$?
		[ $rc = 0 ] || out="stable-6.12/ is stale: run ./build.sh backport
$(echo "$out" | head -n 20)"
	else
		rc=1 out=$(cat "$tmp.log")
	fi
	rm -rf "$tmp" "$tmp.log"
	[ -z "$out" ] || echo "$out"
	return $rc
}
