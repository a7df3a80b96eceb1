# SPDX-License-Identifier: GPL-2.0
# Shared helpers for build.sh: paths, logging, the pristine base tree.
# Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS=$TOP/harness
CACHE=${BPFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpfilter}
# The guest sees the host's / but mounts tmpfs on these: the cache, which
# holds what the guest runs, must not be below them.
case $CACHE/ in
/tmp/*|/run/*|/var/tmp/*|/var/lib/*|/var/log/*|/var/cache/*|/mnt/*)
	echo "build.sh: BPFILTER_CACHE=$CACHE is hidden in the guest; choose another place" >&2
	exit 1 ;;
esac
SRC=$CACHE/src			# work tree the kernel is built from (series applied)
BASE_GIT=$SRC/.git		# holds the base commit and every series commit
AMTREE=$CACHE/am		# scratch work tree for git am checks
WORK=${BPFILTER_WORK:-$CACHE/work}	# developer tree (./build.sh setup)
WORK_BRANCH=${BPFILTER_BRANCH:-bpfilter}	# its branch
OUT=$CACHE/out			# O= build directory and installed artifacts
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}

# The one base these patches are written against. Bump deliberately.
BASE_PKG=linux-source-6.12
BASE_VERSION=6.12.118-1~deb12u1
BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
BASE_BRANCH=base

# Fixed identity and dates make the base commit hash reproducible, so the
# patches' base-commit: trailer names the same commit on every machine.
export GIT_COMMITTER_NAME="bpfilter build" GIT_COMMITTER_EMAIL="build@bpfilter.invalid"
GIT_FIXED_DATE="2000-01-01T00:00:00Z"

# Debian's tools first: the kernel's scripts (spdxcheck, kernel-doc) and the
# tests need Debian's python3 and its packages, not a user's own.
export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH

JOBS=${JOBS:-$(nproc)}
T0=$(date +%s)

log() { printf '%s [%4ss] %s\n' "==>" "$(($(date +%s) - T0))" "$*" >&2; }
die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

# stage NAME CMD...: run a long stage with a progress line and its duration.
stage() {
	local name=$1 t=$(date +%s) rc
	shift
	log "$name ..."
	"$@"
	rc=$?
	log "$name done in $(($(date +%s) - t))s (rc=$rc)"
	return $rc
}

git_base() { git --git-dir="$BASE_GIT" "$@"; }

# ensure_base: unpack Debian's linux-source once into $SRC, a repository
# with one commit on branch "base"; later runs reuse it. The other trees
# are its worktrees.
ensure_base() {
	if git_base rev-parse -q --verify "refs/heads/$BASE_BRANCH" >/dev/null 2>&1; then
		return 0
	fi
	[ -r "$BASE_TARBALL" ] || die "$BASE_TARBALL missing: run ./build.sh deps"
	local have
	have=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null)
	[ "$have" = "$BASE_VERSION" ] ||
		die "$BASE_PKG $have installed, the series is based on $BASE_VERSION"
	rm -rf "$SRC" && mkdir -p "$SRC" || die "cannot create $SRC"
	stage "unpack $BASE_PKG $BASE_VERSION" \
		tar -C "$SRC" -xJf "$BASE_TARBALL" --strip-components=1 || die "unpack failed"
	(
		cd "$SRC" || exit 1
		export GIT_AUTHOR_NAME=$GIT_COMMITTER_NAME GIT_AUTHOR_EMAIL=$GIT_COMMITTER_EMAIL
		export GIT_AUTHOR_DATE=$GIT_FIXED_DATE GIT_COMMITTER_DATE=$GIT_FIXED_DATE
		git init -q -b "$BASE_BRANCH" . &&
		git config core.bigFileThreshold 16m && git config gc.auto 0 &&
		# Debian's .gitignore ignores the top level; add everything.
		stage "commit base tree" git add -A -f . &&
		git commit -q -m "Debian $BASE_PKG $BASE_VERSION" &&
		git checkout -q --detach
	) || { rm -rf "$SRC"; die "cannot commit the base tree"; }
	log "base commit $(git_base rev-parse "$BASE_BRANCH")"
}

# newer_base_warning: say so when apt offers a newer linux-source-6.12.
newer_base_warning() {
	local cand
	cand=$(apt-cache policy "$BASE_PKG" 2>/dev/null | awk '/Candidate:/ {print $2}')
	if [ -n "$cand" ] && [ "$cand" != "$BASE_VERSION" ] &&
	   dpkg --compare-versions "$cand" gt "$BASE_VERSION"; then
		log "warning: apt offers $BASE_PKG $cand, the series is based on $BASE_VERSION"
	fi
}
