# SPDX-License-Identifier: GPL-2.0
# The series workflow: series + patches/ are the source; the mirror (files
# at their kernel paths in this checkout) is their final state.
# Sourced by build.sh.

SERIES=$SERIES_DIR/series
PATCHES=$SERIES_DIR/patches
# The mirror is the final state of the mainline series; a backport has none.
has_mirror() { [ "$BASE" = mainline ]; }

# The mirror is every file of this checkout under a top-level directory that
# also exists in the kernel tree. MAINTAINERS is carried as MAINTAINERS.fragment.
MIRROR_ROOTS="Documentation arch block certs crypto drivers fs include init
io_uring ipc kernel lib mm net rust samples scripts security sound tools usr virt"

series_patches() {
	[ -r "$SERIES" ] || die "no series file"
	grep -v -e '^#' -e '^[[:space:]]*$' "$SERIES"
}

# Patches that carry a diff (the cover letter does not).
series_diffs() { series_patches | grep -v 'cover-letter'; }

series_hash() {
	{ series_patches; series_diffs | while read -r p; do cat "$PATCHES/$p"; done; } |
		sha1sum | cut -c1-16
}

# worktree DIR: make DIR a work tree of the base repository if it is not one.
worktree() {
	[ -e "$1/.git" ] && return 0
	rm -rf "$1"
	git_base worktree prune
	stage "check out $(basename "$1") tree" \
		git_base worktree add -q --detach "$1" "$BASE_BRANCH" || die "worktree $1"
}

# am_series TREE: reset TREE to the base and git am the series as commits.
# Committer dates follow the author dates so the result is reproducible.
am_series() {
	local tree=$1 p
	git -C "$tree" am --abort >/dev/null 2>&1
	git -C "$tree" reset -q --hard && git -C "$tree" clean -qfdx &&
		git -C "$tree" checkout -q --detach "$BASE_BRANCH" || return 1
	for p in $(series_diffs); do
		[ -r "$PATCHES/$p" ] || { echo "missing patch $p" >&2; return 1; }
		git -C "$tree" am -q --whitespace=error-all --committer-date-is-author-date \
			"$PATCHES/$p" || { echo "git am failed: $p" >&2; git -C "$tree" am --abort; return 1; }
	done
}

# series_commit: print the commit of base + series, applying it if needed.
series_commit() {
	local ref=refs/series/$(series_hash)
	if ! git_base rev-parse -q --verify "$ref^{commit}" >/dev/null; then
		worktree "$AMTREE"
		am_series "$AMTREE" >&2 || return 1
		git_base update-ref "$ref" "$(git -C "$AMTREE" rev-parse HEAD)"
	fi
	git_base rev-parse "$ref^{commit}"
}

# sync_src: bring the build tree to base + series. git checkout rewrites
# only the files that differ, so make rebuilds only what changed.
sync_src() {
	local c
	c=$(series_commit) || die "the series does not apply"
	sync_src_to "$c"
}

# sync_src_to COMMIT: check COMMIT (of the series or of $WORK) out in $SRC.
sync_src_to() {
	local c=$1
	git -C "$SRC" cat-file -e "$c^{commit}" 2>/dev/null ||
		git -C "$SRC" fetch -q "$WORK" "$c" || return 1
	if [ "$(git -C "$SRC" rev-parse HEAD)" != "$c" ] ||
	   [ -n "$(git -C "$SRC" status --porcelain)" ]; then
		git -C "$SRC" checkout -q -f --detach "$c" && git -C "$SRC" clean -qfdx ||
			die "cannot check out the series in $SRC"
	fi
	log "kernel tree $SRC at $(git -C "$SRC" log -1 --format='%h %s')"
}

# touched COMMIT: files the series changes, as paths (deleted ones included).
touched() {
	git_base diff --name-only --no-renames "$BASE_BRANCH" "$1" | grep -vx MAINTAINERS
}

mirror_files() {
	local r
	(cd "$TOP" && for r in $MIRROR_ROOTS; do
		[ -d "$r" ] || continue
		if git rev-parse --git-dir >/dev/null 2>&1; then
			git ls-files --cached --others --exclude-standard -- "$r"
		else
			find "$r" -type f
		fi
	done) | sort -u
}

# write_mirror COMMIT: make the mirror hold exactly COMMIT's touched files.
write_mirror() {
	local c=$1 f
	mirror_files | while read -r f; do rm -f "$TOP/$f"; done
	touched "$c" | while read -r f; do
		git_base cat-file -e "$c:$f" 2>/dev/null || continue
		mkdir -p "$TOP/$(dirname "$f")"
		git_base show "$c:$f" >"$TOP/$f"
		[ "$(git_base ls-tree "$c" -- "$f" | cut -d' ' -f1)" = 100755 ] &&
			chmod +x "$TOP/$f"
	done
	(cd "$TOP" && for r in $MIRROR_ROOTS; do
		[ -d "$r" ] && find "$r" -type d -empty -delete
	done)
	maintainers_added "$c" >"$TOP/MAINTAINERS.fragment"
	[ -s "$TOP/MAINTAINERS.fragment" ] || rm -f "$TOP/MAINTAINERS.fragment"
	return 0
}

# maintainers_added COMMIT: the lines the series adds to MAINTAINERS.
maintainers_added() {
	git_base diff "$BASE_BRANCH" "$1" -- MAINTAINERS | sed -n '/^+++/d; s/^+//p'
}

# check_mirror COMMIT: the mirror equals the tree after the series.
check_mirror() {
	local c=$1 f bad=0 files
	files=$(touched "$c")
	while read -r f; do
		[ -n "$f" ] || continue
		if git_base cat-file -e "$c:$f" 2>/dev/null; then
			if [ ! -f "$TOP/$f" ]; then
				echo "mirror: missing $f"; bad=1
			elif ! git_base show "$c:$f" | cmp -s - "$TOP/$f"; then
				echo "mirror: differs from the series: $f"; bad=1
			fi
		elif [ -e "$TOP/$f" ]; then
			echo "mirror: the series deletes $f"; bad=1
		fi
	done <<<"$files"
	while read -r f; do
		grep -qxF "$f" <<<"$files" || { echo "mirror: not in the series: $f"; bad=1; }
	done < <(mirror_files)
	if ! maintainers_added "$c" | cmp -s - "$TOP/MAINTAINERS.fragment" 2>/dev/null &&
	   { [ -e "$TOP/MAINTAINERS.fragment" ] || [ -n "$(maintainers_added "$c")" ]; }; then
		echo "mirror: MAINTAINERS.fragment is not what the series adds to MAINTAINERS"; bad=1
	fi
	return $bad
}

# Sub-series: the series is posted in parts of at most 15 patches, each
# with a cover letter, in directories of patches/ (NAME/0000-cover-letter.patch
# ...), the series file listing them in order. In the developer tree,
# branch.$WORK_BRANCH.subseries holds "NAME SUBJECT" for each, SUBJECT
# being that of its last patch (the last part takes what follows), and
# branch.$WORK_BRANCH.cover-NAME its cover letter's subject and text. A
# series in one directory (stable-6.12/) keeps its text as the branch
# description.
subseries_names() { series_patches | awk -F/ 'NF > 1 { print $1 }' | uniq; }

# The developer tree: base + series as commits on branch "$WORK_BRANCH".
cmd_setup() {
	local c n last k
	[ "${1:-}" = --force ] || [ ! -e "$WORK/.git" ] ||
		die "$WORK exists; ./build.sh setup --force discards it"
	c=$(series_commit) || die "the series does not apply"
	worktree "$WORK"
	git -C "$WORK" reset -q --hard && git -C "$WORK" clean -qfdx
	git -C "$WORK" checkout -q -B $WORK_BRANCH "$c" || die "checkout failed"
	git -C "$WORK" config --unset-all branch.$WORK_BRANCH.subseries
	if [ -z "$(subseries_names)" ]; then
		git -C "$WORK" config branch.$WORK_BRANCH.description \
			"$(cover_description "$PATCHES/0000-cover-letter.patch")"
	fi
	for n in $(subseries_names); do
		# The commits are the patches, in order: the Kth diff is the Kth commit.
		k=$(series_diffs | grep -n "^$n/" | tail -1 | cut -d: -f1)
		last=$(git -C "$WORK" log --reverse --format=%s "$BASE_BRANCH.." | sed -n "${k}p")
		git -C "$WORK" config --add branch.$WORK_BRANCH.subseries "$n $last"
		git -C "$WORK" config branch.$WORK_BRANCH.cover-$n \
			"$(cover_description "$PATCHES/$n/0000-cover-letter.patch")"
	done
	log "developer tree: $WORK (branch $WORK_BRANCH, $(git -C "$WORK" rev-list --count "$BASE_BRANCH..") patches on $BASE_BRANCH)"
	log "commit there, then ./build.sh export"
}

# cover_description LETTER: its subject and body, as the text to keep.
cover_description() {
	local cl=$1
	[ -r "$cl" ] || { echo "bpfilter: *** SUBJECT ***"; echo; echo "*** BLURB ***"; return; }
	awk '/^Subject: / { s = $0; sub(/^Subject: \[PATCH[^]]*\] /, "", s); on = 1; next }
	     on && /^ / { s = s $0; next } on { print s; exit }' "$cl"
	echo
	# Body: from the first blank line after the headers to the shortlog.
	awk 'body && /^[^ ].* \([0-9]+\):$/ { exit } body { print } /^$/ && !body { body = 1 }' "$cl" |
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# format_part FROM TO DIR [TEXT]: the patches FROM..TO into DIR, with a
# cover letter of TEXT (else the branch description). --base names the
# base and, for a later part, the patches of the parts before it.
format_part() {
	local from=$1 to=$2 dir=$3 text=${4:-} ref=$WORK_BRANCH
	if [ -n "$text" ]; then
		ref=export-part
		git -C "$WORK" branch -f "$ref" "$to" &&
			git -C "$WORK" config branch.$ref.description "$text" || return 1
	fi
	mkdir -p "$dir"
	# The cover letter is signed by the author of the last patch.
	GIT_COMMITTER_NAME=$(git -C "$WORK" log -1 --format=%an) \
	GIT_COMMITTER_EMAIL=$(git -C "$WORK" log -1 --format=%ae) \
		git -C "$WORK" format-patch -q -M --abbrev=9 --cover-letter --cover-from-description=subject \
		--base="$BASE_BRANCH" --zero-commit -o "$dir" "$from..$ref"
	local rc=$?
	[ "$ref" = "$WORK_BRANCH" ] || git -C "$WORK" branch -q -D "$ref"
	return $rc
}

cmd_export() {
	[ -e "$WORK/.git" ] || die "no developer tree; run ./build.sh setup"
	[ -z "$(git -C "$WORK" status --porcelain --untracked-files=no)" ] ||
		die "$WORK has uncommitted changes"
	local head n from to name subj parts
	[ "$(git -C "$WORK" symbolic-ref -q --short HEAD)" = $WORK_BRANCH ] ||
		die "$WORK: check out branch $WORK_BRANCH first"
	head=$(git -C "$WORK" rev-parse HEAD)
	n=$(git -C "$WORK" rev-list --count "$BASE_BRANCH..$head")
	[ "$n" -gt 0 ] || die "no commits on top of $BASE_BRANCH in $WORK"
	rm -rf "$PATCHES" && mkdir -p "$PATCHES"
	parts=$(git -C "$WORK" config --get-all branch.$WORK_BRANCH.subseries)
	if [ -z "$parts" ]; then
		format_part "$BASE_BRANCH" "$head" "$PATCHES" || die "format-patch failed"
	else
		from=$BASE_BRANCH
		while read -r name subj; do
			to=$(git -C "$WORK" log --reverse --format='%H %s' "$from..$head" |
				awk -v s="$subj" 'substr($0, 42) == s { print $1; exit }')
			# The last part takes every patch that follows.
			[ "$name" = "$(tail -1 <<<"$parts" | cut -d' ' -f1)" ] && to=$head
			[ -n "$to" ] || die "sub-series $name: no patch \"$subj\" after $from"
			format_part "$from" "$to" "$PATCHES/$name" \
				"$(git -C "$WORK" config branch.$WORK_BRANCH.cover-$name)" ||
				die "format-patch of $name failed"
			from=$to
		done <<<"$parts"
	fi
	(cd "$PATCHES" && find . -name '*.patch' | sed 's|^\./||' | sort -V) >"$SERIES"
	git_base update-ref "refs/series/$(series_hash)" "$head"
	if has_mirror; then
		write_mirror "$head"
		log "exported $n patches to patches/, series and the mirror"
	else
		log "exported $n patches to ${PATCHES#$TOP/}/ and ${SERIES#$TOP/}"
	fi
}

# fold: edits made in the mirror become fixups of the last patch that
# touches each file, squashed into it; then export.
cmd_fold() {
	local c f owner n=0
	has_mirror || die "fold: the $BASE series has no mirror; commit in $WORK and export"
	c=$(series_commit) || die "the series does not apply"
	if [ ! -e "$WORK/.git" ]; then
		cmd_setup
	elif [ "$(git -C "$WORK" rev-parse HEAD^{tree})" != "$(git_base rev-parse "$c^{tree}")" ]; then
		die "$WORK differs from the series; export it or ./build.sh setup --force"
	fi
	git -C "$WORK" checkout -q $WORK_BRANCH 2>/dev/null || git -C "$WORK" checkout -q -B $WORK_BRANCH
	while read -r f; do
		if [ -f "$TOP/$f" ]; then
			git_base show "$c:$f" 2>/dev/null | cmp -s - "$TOP/$f" && continue
			mkdir -p "$WORK/$(dirname "$f")"
			cp -p "$TOP/$f" "$WORK/$f"
		else
			git_base cat-file -e "$c:$f" 2>/dev/null || continue
			rm -f "$WORK/$f"
		fi
		owner=$(git -C "$WORK" log -1 --format=%H "$BASE_BRANCH..HEAD" -- "$f")
		[ -n "$owner" ] || die "$f: no patch of the series touches it; commit it in $WORK"
		git -C "$WORK" add -A -f -- "$f" &&
			git -C "$WORK" commit -q --fixup="$owner" -- "$f" || die "fixup of $f failed"
		log "fold $f into: $(git -C "$WORK" log -1 --format=%s "$owner")"
		n=$((n + 1))
	done < <({ touched "$c"; mirror_files; } | sort -u)
	[ $n -gt 0 ] || { log "mirror equals the series; nothing to fold"; return 0; }
	GIT_SEQUENCE_EDITOR=true git -C "$WORK" rebase -q -i --autosquash "$BASE_BRANCH" ||
		die "rebase failed in $WORK; resolve there, then ./build.sh export"
	cmd_export
}
